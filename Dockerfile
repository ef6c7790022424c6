# rummy-audit: the API behind gunicorn, with the DuckDB file on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 rummy \
    && mkdir -p /data \
    && chown rummy:rummy /data

WORKDIR /app
COPY pyproject.toml README.md gunicorn.conf.py ./
COPY service ./service
COPY schemas ./schemas
RUN pip install .

ENV HOST=0.0.0.0 \
    PORT=8000 \
    RUMMY_DB=/data/rummy.duckdb

VOLUME ["/data"]
USER rummy
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/api/v1/healthz' % os.environ.get('PORT', '8000'), timeout=4)" || exit 1

CMD ["gunicorn", "-c", "gunicorn.conf.py"]
