# Sourced by setup.sh, run.sh and test.sh: where ONNX Runtime's shared
# library lives once setup has installed it. Jarvis loads the build that
# npm's onnxruntime-node ships (bin/napi-v6/linux/<arch>/libonnxruntime.so.1);
# without it the models run on the pure-Go backend.
ORT_NODE_VERSION=1.30.0
ORT_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/jarvis/onnxruntime-node-$ORT_NODE_VERSION"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ORT_ARCH=x64 ;;
  Linux-aarch64 | Linux-arm64) ORT_ARCH=arm64 ;;
  *) ORT_ARCH="" ;;
esac
ORT_LIB=""
[ -z "$ORT_ARCH" ] || ORT_LIB="$ORT_CACHE/node_modules/onnxruntime-node/bin/napi-v6/linux/$ORT_ARCH/libonnxruntime.so.1"

# install_ort_beside DIR: copy the library next to the binaries in DIR, where
# they look for it; says which backend they will use.
install_ort_beside() {
  if [ -n "$ORT_LIB" ] && [ -f "$ORT_LIB" ]; then
    install -m 0644 "$ORT_LIB" "$1/libonnxruntime.so.1"
    echo "inference: ONNX Runtime $ORT_NODE_VERSION ($1/libonnxruntime.so.1)"
  else
    echo "inference: pure Go (ONNX Runtime is not installed; build/scripts/setup.sh installs it from npm)"
  fi
}
