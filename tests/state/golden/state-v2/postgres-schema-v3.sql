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
-- Name: golden_v2; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA golden_v2;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: locks; Type: TABLE; Schema: golden_v2; Owner: -
--

CREATE TABLE golden_v2.locks (
    state_id bigint NOT NULL,
    lock_id text NOT NULL,
    who text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    operation text NOT NULL,
    since text NOT NULL,
    ci_run text,
    tool_version text NOT NULL,
    backend_pid integer NOT NULL,
    lease double precision DEFAULT 15 NOT NULL,
    generation bigint DEFAULT 0 NOT NULL,
    renewed timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: operations; Type: TABLE; Schema: golden_v2; Owner: -
--

CREATE TABLE golden_v2.operations (
    state_id bigint NOT NULL,
    base_serial bigint NOT NULL,
    seq bigint NOT NULL,
    line text NOT NULL
);


--
-- Name: operations_seq_seq; Type: SEQUENCE; Schema: golden_v2; Owner: -
--

CREATE SEQUENCE golden_v2.operations_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: operations_seq_seq; Type: SEQUENCE OWNED BY; Schema: golden_v2; Owner: -
--

ALTER SEQUENCE golden_v2.operations_seq_seq OWNED BY golden_v2.operations.seq;


--
-- Name: schema_version; Type: TABLE; Schema: golden_v2; Owner: -
--

CREATE TABLE golden_v2.schema_version (
    singleton boolean DEFAULT true NOT NULL,
    version integer NOT NULL,
    CONSTRAINT schema_version_singleton_check CHECK (singleton)
);


--
-- Name: states; Type: TABLE; Schema: golden_v2; Owner: -
--

CREATE TABLE golden_v2.states (
    id bigint NOT NULL,
    name text NOT NULL,
    lineage text,
    plan_key text,
    created timestamp with time zone DEFAULT now() NOT NULL,
    lock_generation bigint DEFAULT 0 NOT NULL
);


--
-- Name: states_id_seq; Type: SEQUENCE; Schema: golden_v2; Owner: -
--

CREATE SEQUENCE golden_v2.states_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: states_id_seq; Type: SEQUENCE OWNED BY; Schema: golden_v2; Owner: -
--

ALTER SEQUENCE golden_v2.states_id_seq OWNED BY golden_v2.states.id;


--
-- Name: versions; Type: TABLE; Schema: golden_v2; Owner: -
--

CREATE TABLE golden_v2.versions (
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
-- Name: operations seq; Type: DEFAULT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.operations ALTER COLUMN seq SET DEFAULT nextval('golden_v2.operations_seq_seq'::regclass);


--
-- Name: states id; Type: DEFAULT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.states ALTER COLUMN id SET DEFAULT nextval('golden_v2.states_id_seq'::regclass);


--
-- Data for Name: locks; Type: TABLE DATA; Schema: golden_v2; Owner: -
--



--
-- Data for Name: operations; Type: TABLE DATA; Schema: golden_v2; Owner: -
--

INSERT INTO golden_v2.operations VALUES (1, 4, 1, '{"lineage":"6f571b70-a916-456f-84c1-b8fc04cbccb7","base":4,"deltas":[{"intent":{"id":"bd4aa9d5-2c4a-45e1-bb62-93c86801d23b","op":"redeploy","name":"api","started_at":"2026-11-29T05:57:06.078199Z","deployment_id":"2be6babd-5094-4ebb-8b5c-8dc7fec454c7","details":{"revision_id":"04c6ac83-2b67-470e-8e29-affa5a004684","fields":{"source_revision_config.repo_ref":"main","source_revision_config.agent_config_path":"agent.json","source":"git_host"},"latest_revision_id":"76d766ca-6257-45c2-9ec0-32a034b9761c","by":"root@vm"}}}]}
');


--
-- Data for Name: schema_version; Type: TABLE DATA; Schema: golden_v2; Owner: -
--

INSERT INTO golden_v2.schema_version VALUES (true, 3);


--
-- Data for Name: states; Type: TABLE DATA; Schema: golden_v2; Owner: -
--

INSERT INTO golden_v2.states VALUES (1, 'app', '6f571b70-a916-456f-84c1-b8fc04cbccb7', NULL, '2026-11-29 05:57:11.596773+00', 1);


--
-- Data for Name: versions; Type: TABLE DATA; Schema: golden_v2; Owner: -
--

INSERT INTO golden_v2.versions VALUES (1, 4, '6f571b70-a916-456f-84c1-b8fc04cbccb7', '{
  "checksum": "sha256:805679c7d4dbe10eaaed3feb7cfa4d6d0e07b5ca47b87e39d89ff89987de1d4e",
  "deployments": {
    "api": {
      "active_revision_id": "76d766ca-6257-45c2-9ec0-32a034b9761c",
      "id": "2be6babd-5094-4ebb-8b5c-8dc7fec454c7",
      "latest_revision_id": "76d766ca-6257-45c2-9ec0-32a034b9761c",
      "managed": {
        "source": "git_host",
        "source_config": {
          "build_on_push": false,
          "integration_id": "9a0e7c55-0000-4000-8000-00000000a001",
          "repo_url": "https://git.example.com/acme/api",
          "resource_spec": {
            "cpu": 0.5,
            "max_scale": 2,
            "memory_mb": 512
          }
        },
        "source_revision_config": {
          "agent_config_path": "agent.json",
          "repo_ref": "v2"
        }
      },
      "name": "api",
      "protect": false,
      "secret_digests": {
        "API_TOKEN": "hmac-sha256:15b8cb033245a9b13f43eb11ebb2ec3a2bc97be1046f53f0877a3581d5fd0ab8"
      },
      "updated_at": "2026-11-29T05:57:00.376724Z"
    },
    "worker": {
      "active_revision_id": "a30e5837-2f93-4813-ab27-ce5b9e08e0e8",
      "held": {
        "by": "root@vm",
        "revision_id": "2d3f2ff0-e83e-4ff2-8f43-5c5c2e03e391",
        "since": "2026-11-29T05:57:02Z"
      },
      "id": "6fe61829-d5ae-4072-9d0f-a9a33533d0a5",
      "latest_revision_id": "a30e5837-2f93-4813-ab27-ce5b9e08e0e8",
      "managed": {
        "source": "internal_docker",
        "source_config": {
          "resource_spec": {
            "cpu": 0.5,
            "memory_mb": 512
          }
        },
        "source_revision_config": {
          "image_uri": "registry.example.com/acme/worker:1.0.0"
        }
      },
      "name": "worker",
      "protect": false,
      "secret_digests": {},
      "updated_at": "2026-11-29T05:57:03.005590Z"
    }
  },
  "endpoint": "embedded:state/local-control-plane.db",
  "format_version": 2,
  "lineage": "6f571b70-a916-456f-84c1-b8fc04cbccb7",
  "pending": [],
  "serial": 4,
  "tenant_id": "00000000-0000-4000-8000-000000000001",
  "tool_version": "0.1.0"
}
', 'sha256:805679c7d4dbe10eaaed3feb7cfa4d6d0e07b5ca47b87e39d89ff89987de1d4e', 2, '2026-11-29 05:57:11.648947+00', 'root@vm pid 27093');


--
-- Name: operations_seq_seq; Type: SEQUENCE SET; Schema: golden_v2; Owner: -
--

SELECT pg_catalog.setval('golden_v2.operations_seq_seq', 1, true);


--
-- Name: states_id_seq; Type: SEQUENCE SET; Schema: golden_v2; Owner: -
--

SELECT pg_catalog.setval('golden_v2.states_id_seq', 1, true);


--
-- Name: locks locks_pkey; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.locks
    ADD CONSTRAINT locks_pkey PRIMARY KEY (state_id);


--
-- Name: operations operations_pkey; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.operations
    ADD CONSTRAINT operations_pkey PRIMARY KEY (state_id, base_serial, seq);


--
-- Name: schema_version schema_version_pkey; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.schema_version
    ADD CONSTRAINT schema_version_pkey PRIMARY KEY (singleton);


--
-- Name: states states_name_key; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.states
    ADD CONSTRAINT states_name_key UNIQUE (name);


--
-- Name: states states_pkey; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.states
    ADD CONSTRAINT states_pkey PRIMARY KEY (id);


--
-- Name: versions versions_pkey; Type: CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.versions
    ADD CONSTRAINT versions_pkey PRIMARY KEY (state_id, serial);


--
-- Name: locks locks_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.locks
    ADD CONSTRAINT locks_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v2.states(id) ON DELETE CASCADE;


--
-- Name: operations operations_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.operations
    ADD CONSTRAINT operations_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v2.states(id) ON DELETE CASCADE;


--
-- Name: versions versions_state_id_fkey; Type: FK CONSTRAINT; Schema: golden_v2; Owner: -
--

ALTER TABLE ONLY golden_v2.versions
    ADD CONSTRAINT versions_state_id_fkey FOREIGN KEY (state_id) REFERENCES golden_v2.states(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


