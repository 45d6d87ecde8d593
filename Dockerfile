# httpslab's container image, for bench workers on Kubernetes (httpslab k8s job).
# The binary is built static first, then copied onto an empty base, so no
# base image is pulled from a registry:
#
#   CGO_ENABLED=0 go build -o httpslab ./cmd/httpslab
#   docker build -t httpslab:latest .
#
# The image has no CA bundle: give bench --cacert FILE (built into an image
# of your own) or -k.
FROM scratch
COPY httpslab /httpslab
ENTRYPOINT ["/httpslab"]
