"""Jobs through real Prefect flow runs: the dispatcher, delivery, outages, fairness."""
