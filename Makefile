# docklake: the two set-up commands. Both install whatever is missing first.
.PHONY: run test lint bench compose-check docs

run:
	bash scripts/bootstrap.sh run
	.venv/bin/docklake serve

test:
	bash scripts/bootstrap.sh test
	.venv/bin/lint-imports
	.venv/bin/ruff check api pipelines assets sandbox_runtime tests bench
	d="$$(mktemp -d)"; NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$$d"; rc=$$?; rm -rf "$$d"; exit $$rc
	.venv/bin/python -m pytest -ra $(PYTEST_ARGS)

bench:
	bash scripts/bootstrap.sh test
	.venv/bin/pip install -q -c constraints.txt -e '.[test,bench]'
	.venv/bin/python -m bench

# compose.yaml's whole stack, every image built here from Debian's packages and PyPI
compose-check:
	bash scripts/bootstrap.sh test
	.venv/bin/python -m pytest -ra -s -m compose tests/e2e/test_compose.py

# the docs site (docs/, mkdocs.yml) on http://127.0.0.1:8000
docs:
	test -x .venv/bin/mkdocs || bash scripts/bootstrap.sh test
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs serve --dev-addr 127.0.0.1:8000
