# One image for the API, the Celery worker and beat (see docker-compose.yml).
FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap libseccomp2 wordnet-base \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY grader ./grader
COPY workers ./workers
COPY rubrics ./rubrics
COPY examples ./examples
COPY scripts ./scripts
RUN pip install --no-cache-dir -e .
ENV INSTANCE_PATH=/var/lib/grader
EXPOSE 8000
CMD ["gunicorn", "--worker-class", "gthread", "--threads", "8", "--workers", "4", "--bind", "0.0.0.0:8000", "grader.wsgi:app"]
