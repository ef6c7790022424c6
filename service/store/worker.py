"""The analysis catch-up's worker process: ``python -m service.store.worker`` (see
``analysis._Worker``)."""

from service.store.analysis import serve_worker

if __name__ == "__main__":
    serve_worker()
