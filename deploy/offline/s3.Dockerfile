# A stand-in for MinIO, for machines without a registry: moto's S3 server (from PyPI) on
# port 9000, with boto3 for the one-shot service that creates the bucket.
ARG BASE=docklake/debian:bookworm
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv ca-certificates >/dev/null \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/s3 && /opt/s3/bin/pip install -q --no-cache-dir "moto[server]==5.2.5"
ENV PATH=/opt/s3/bin:$PATH
EXPOSE 9000
CMD ["moto_server", "-H", "0.0.0.0", "-p", "9000"]
