"""docklake pipelines: document stages, the job runner and the Prefect flows that wire them."""
