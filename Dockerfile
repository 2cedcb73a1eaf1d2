# The image the Kubernetes manifests in k8s/ run: the repository, installed and built with the
# README's set-up (`npm ci`, which builds dist/), then without the dev dependencies.
FROM node:20-slim
WORKDIR /fieldtest
COPY . .
RUN npm ci && npm prune --omit=dev && npm cache clean --force
ENTRYPOINT []
