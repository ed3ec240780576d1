"""Tests of one function or stage at a time: no server, no engine, no Prefect."""
