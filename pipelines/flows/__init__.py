"""Orchestration: where Prefect comes in.

``documents`` holds the Prefect flows and tasks that run the use cases on claimed jobs,
``dispatcher`` claims jobs from the catalog and starts them, ``delivery`` hands them to Prefect task
workers on other machines, ``prefect_server`` runs the managed local Prefect server, and
``sandboxes`` runs the sandboxes' background lifecycle steps as task runs. The use cases below know
nothing of Prefect; this layer wires them to it.
"""
