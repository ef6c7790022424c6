"""Scale-out audit: verify any number of logs on a Dask cluster, results as Parquet.

    rummy-audit audit logs/ more.ndjson.gz --out audit-out [--scheduler tcp://host:8786]
    rummy-audit import audit-out --db data/rummy.duckdb

``sources`` cuts the inputs into shards, ``task`` verifies (with ``--analyse``, also
analyses) one shard on a worker and writes its tables, ``layout`` says where they go
and keeps the manifest, ``run`` drives a cluster, ``command`` is the command line.  The Parquet layout is read by DuckDB
(``service.store.lake``): imported into a store, or queried where it lies.
"""

from .run import AuditResult, audit
from .version import engine_version

__all__ = ["AuditResult", "audit", "engine_version"]
