# A stand-in for the official postgres image, built from Debian's postgresql package, for
# machines without a registry: the same POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, data
# directory and pg_isready. Production uses the official image (compose.yaml).
ARG BASE=docklake/debian:bookworm
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/
ENV PGDATA=/var/lib/postgresql/data PATH=/usr/lib/postgresql/15/bin:$PATH
USER postgres
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
