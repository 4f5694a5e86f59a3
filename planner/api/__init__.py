"""Wire models shared by client and server, the field-behaviour table, the API client."""
