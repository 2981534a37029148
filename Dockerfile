# German→English translation service: gunicorn + Flask on CPU-only PyTorch.
#   docker build -t de-en-nmt .
#   docker run --rm -p 8000:8000 de-en-nmt        # then open http://localhost:8000
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8000 \
    MODEL_PATH=/srv/app/checkpoints/de-en.pt

WORKDIR /srv/app

# The Ding dictionary (GPL-2.0-or-later, © Frank Richter) behind the translate page's dictionary panel and
# /api/dictionary (DICTIONARY_PATH's default, /usr/share/trans/de-en) and the glossaries' noun plurals. Not
# pinned: the version follows the base image's Debian release (the data changes rarely).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends trans-de-en \
    && rm -rf /var/lib/apt/lists/*

# The CPU-only wheel is a fraction of the CUDA one's size; installed first so that this layer
# stays cached while the application code changes.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

# The runtime dependencies, read from pyproject.toml so the list lives in one place. The project
# itself is not pip-installed: the app finds templates/ and static/ next to app/.
# (torch==2.13.0 there is satisfied by the +cpu wheel above.)
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY model/ model/
COPY pipeline/ pipeline/
COPY app/ app/
# The commands, for an operator in the container (docker compose exec app python -m commands.keys list).
COPY commands/ commands/
COPY templates/ templates/
COPY static/ static/
COPY gunicorn.conf.py ./
COPY checkpoints/de-en.pt checkpoints/de-en.pt
# The attributed Tatoeba samples behind Random: training sentences (CORPUS_PATH's default) and
# held-out test sentences (HELD_OUT_PATH's default; without the file the app would not start).
COPY checkpoints/random-sample.tsv checkpoints/random-sample.tsv
COPY checkpoints/random-held-out.tsv checkpoints/random-held-out.tsv
COPY MODEL_CARD.md ./

RUN useradd --system --uid 10001 --no-create-home --home-dir /srv/app --shell /usr/sbin/nologin app
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001

EXPOSE 8000
# slim has no curl: ask /health with Python's standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '8000'), timeout=4)"]

CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:create_app()"]
