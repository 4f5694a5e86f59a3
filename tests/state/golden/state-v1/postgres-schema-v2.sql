--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: golden_v1; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA golden_v1;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: locks; Type: TABLE; Schema: golden_v1; Owner: -
--

CREATE TABLE golden_v1.locks (
    state_id bigint NOT NULL,
    lock_id text NOT NULL,
    who text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    operation text NOT NULL,
    since text NOT NULL,
    ci_run text,
    tool_version text NOT NULL,
    backend_pid integer NOT NULL
);


--
-- Name: operations; Type: TABLE; Schema: golden_v1; Owner: -
--

CREATE TABLE golden_v1.operations (
    state_id bigint NOT NULL,
    base_serial bigint NOT NULL,
    seq bigint NOT NULL,
    line text NOT NULL
);


--
-- Name: operations_seq_seq; Type: SEQUENCE; Schema: golden_v1; Owner: -
--

CREATE SEQUENCE golden_v1.operations_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: operations_seq_seq; Type: SEQUENCE OWNED BY; Schema: golden_v1; Owner: -
--

ALTER SEQUENCE golden_v1.operations_seq_seq OWNED BY golden_v1.operations.seq;


--
-- Name: schema_version; Type: TABLE; Schema: golden_v1; Owner: -
--

CREATE TABLE golden_v1.schema_version (
    singleton boolean DEFAULT true NOT NULL,
    version integer NOT NULL,
    CONSTRAINT schema_version_singleton_check CHECK (singleton)
);


--
-- Name: states; Type: TABLE; Schema: golden_v1; Owner: -
--

CREATE TABLE golden_v1.states (
    id bigint NOT NULL,
    name text NOT NULL,
    lineage text,
    plan_key text,
    created timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: states_id_seq; Type: SEQUENCE; Schema: golden_v1; Owner: -
--

CREATE SEQUENCE golden_v1.states_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: states_id_seq; Type: SEQUENCE OWNED BY; Schema: golden_v1; Owner: -
--

ALTER SEQUENCE golden_v1.states_id_seq OWNED BY golden_v1.states.id;


--
-- Name: versions; Type: TABLE; Schema: golden_v1; Owner: -
--

CREATE TABLE golden_v1.versions (
    state_id bigint NOT NULL,
    serial bigint NOT NULL,
    lineage text NOT NULL,
    document text NOT NULL,
    checksum text NOT NULL,
    deployments integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    written_by text NOT NULL
);


--
-- Name: operations seq; Type: DEFAULT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.operations ALTER COLUMN seq SET DEFAULT nextval('golden_v1.operations_seq_seq'::regclass);


--
-- Name: states id; Type: DEFAULT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.states ALTER COLUMN id SET DEFAULT nextval('golden_v1.states_id_seq'::regclass);


--
-- Data for Name: locks; Type: TABLE DATA; Schema: golden_v1; Owner: -
--

INSERT INTO golden_v1.locks VALUES (1, '1ae801d9-cfe5-4d55-8c9f-58f292d0120a', 'root@vm', 'vm', 30941, 'apply', '2026-11-25T13:53:59Z', NULL, '0.1.0', 30956);


--
-- Data for Name: operations; Type: TABLE DATA; Schema: golden_v1; Owner: -
--

INSERT INTO golden_v1.operations VALUES (1, 2, 6, '{"lineage":"adf892df-71c6-4032-908b-abb9eafd8d6f","base":2,"deltas":[{"intent":{"id":"6243c2e7-ef1e-407a-bf67-441249d5d429","op":"create","name":"web","started_at":"2026-11-25T13:53:59.410961Z","deployment_id":null,"details":{}}}]}
');
INSERT INTO golden_v1.operations VALUES (1, 2, 7, '{"lineage":"adf892df-71c6-4032-908b-abb9eafd8d6f","base":2,"deltas":[{"intent":{"id":"8262d348-555c-4af0-9584-e24980bbd097","op":"update","name":"worker","started_at":"2026-11-25T13:53:59.411207Z","deployment_id":"a1aa2af8-7d74-4455-9cde-ee1b367ff362","details":{"fields":{"source_revision_config.image_uri":"registry.example.com/acme/worker:1.1.0"},"sends_secrets":false,"secret_digests":{}}}}]}
');


--
-- Data for Name: schema_version; Type: TABLE DATA; Schema: golden_v1; Owner: -
--

INSERT INTO golden_v1.schema_version VALUES (true, 2);


--
-- Data for Name: states; Type: TABLE DATA; Schema: golden_v1; Owner: -
--

INSERT INTO golden_v1.states VALUES (1, 'app', 'adf892df-71c6-4032-908b-abb9eafd8d6f', NULL, '2026-11-25 13:53:55.331069+00');


--
-- Data for Name: versions; Type: TABLE DATA; Schema: golden_v1; Owner: -
--

INSERT INTO golden_v1.versions VALUES (1, 1, 'adf892df-71c6-4032-908b-abb9eafd8d6f', '{
  "checksum": "sha256:61b89bb0012b7c648d15d5b4f1ecb32e7bf74d910e1bfa759dfd885970b17814",
  "deployments": {},
  "endpoint": "embedded:/tmp/dur/gold/pgstate/local-control-plane.db",
  "format_version": 1,
  "lineage": "adf892df-71c6-4032-908b-abb9eafd8d6f",
  "pending": [
    {
      "deployment_id": null,
      "details": {},
      "id": "96f7ca5d-aa70-4bee-a7c1-97fb3d90087f",
      "name": "api",
      "op": "create",
      "started_at": "2026-11-25T13:53:55.666362Z"
    }
  ],
  "serial": 1,
  "tenant_id": "00000000-0000-4000-8000-000000000001",
  "tool_version": "0.1.0"
}
', 'sha256:61b89bb0012b7c648d15d5b4f1ecb32e7bf74d910e1bfa759dfd885970b17814', 0, '2026-11-25 13:53:55.689158+00', 'root@vm pid 30895');
INSERT INTO golden_v1.versions VALUES (1, 2, 'adf892df-71c6-4032-908b-abb9eafd8d6f', '{
  "checksum": "sha256:fe99d7eca357f9658bc19cd078bdbfd8d9f57048f9fda4db2772c82bf0a78ee6",
  "deployments": {
    "api": {
      "active_revision_id": "06cf2759-218a-4c2a-af5a-61000ae8e989",
      "id": "c1cb2138-05bf-4b47-afcf-ef845c8d1bea",
      "latest_revision_id": "06cf2759-218a-4c2a-af5a-61000ae8e989",
      "managed": {
        "source": "internal_docker",
        "source_revision_config": {
          "image_uri": "registry.example.com/acme/api:1.0.0"
        }
      },
      "name": "api",
      "protect": false,
      "secret_digests": {
        "API_TOKEN": "hmac-sha256:8e0d473b3ead9733c5d2261e8857edaa6f89748150c116a4c5a3327a42d2b928"
      },
      "updated_at": "2026-11-25T13:53:55.714325Z"
    },
    "worker": {
      "active_revision_id": "19c8831a-7164-45e9-b791-6309d39ee1f8",
      "id": "a1aa2af8-7d74-4455-9cde-ee1b367ff362",
      "latest_revision_id": "19c8831a-7164-45e9-b791-6309d39ee1f8",
      "managed": {
        "source": "internal_docker",
        "source_revision_config": {
          "image_uri": "registry.example.com/acme/worker:1.0.0"
        }
      },
      "name": "worker",
      "protect": false,
      "secret_digests": {},
      "updated_at": "2026-11-25T13:53:55.756237Z"
    }
  },
  "endpoint": "embedded:/tmp/dur/gold/pgstate/local-control-plane.db",
  "format_version": 1,
  "lineage": "adf892df-71c6-4032-908b-abb9eafd8d6f",
  "pending": [],
  "serial": 2,
  "tenant_id": "00000000-0000-4000-8000-000000000001",
  "tool_version": "0.1.0"
}
', 'sha256:fe99d7eca357f9658bc19cd078bdbfd8d9f57048f9fda4db2772c82bf0a78ee6', 2, '2026-11-25 13:53:56.031727+00', 'root@vm pid 30895');


--
-- Name: operations_seq_seq; Type: SEQUENCE SET; Schema: golden_v1; Owner: -
--

SELECT pg_catalog.setval('golden_v1.operations_seq_seq', 7, true);


--
-- Name: states_id_seq; Type: SEQUENCE SET; Schema: golden_v1; Owner: -
--

SELECT pg_catalog.setval('golden_v1.states_id_seq', 1, true);


--
-- Name: locks locks_pkey; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.locks
    ADD CONSTRAINT locks_pkey PRIMARY KEY (state_id);


--
-- Name: operations operations_pkey; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.operations
    ADD CONSTRAINT operations_pkey PRIMARY KEY (state_id, base_serial, seq);


--
-- Name: schema_version schema_version_pkey; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.schema_version
    ADD CONSTRAINT schema_version_pkey PRIMARY KEY (singleton);


--
-- Name: states states_name_key; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.states
    ADD CONSTRAINT states_name_key UNIQUE (name);


--
-- Name: states states_pkey; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.states
    ADD CONSTRAINT states_pkey PRIMARY KEY (id);


--
-- Name: versions versions_pkey; Type: CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.versions
    ADD CONSTRAINT versions_pkey PRIMARY KEY (state_id, serial);


--
-- Name: locks locks_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.locks
    ADD CONSTRAINT locks_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v1.states(id) ON DELETE CASCADE;


--
-- Name: operations operations_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.operations
    ADD CONSTRAINT operations_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v1.states(id) ON DELETE CASCADE;


--
-- Name: versions versions_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v1; Owner: -
--

ALTER TABLE ONLY golden_v1.versions
    ADD CONSTRAINT versions_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v1.states(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


