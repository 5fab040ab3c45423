# The bake file examples/bake.yml bakes, for trying it locally with the runner harness (docs/harness.md).
group "default" {
  targets = ["api", "web"]
}

target "api" {
  dockerfile = "Dockerfile"
  tags       = ["ghcr.io/octo-org/octo-repo/api:latest"]
}

target "web" {
  dockerfile = "Dockerfile"
  tags       = ["ghcr.io/octo-org/octo-repo/web:latest"]
}
