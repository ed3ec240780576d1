"""A whole running docklake (serve, worker, Prefect server) driven over HTTP and the CLI."""
