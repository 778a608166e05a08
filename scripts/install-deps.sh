#!/usr/bin/env bash
# Installs every Debian 12 package remat needs, skipping those already
# installed. Idempotent; run as root (or with sudo).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ git ccache
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  libclang-rt-22-dev
  libgtest-dev coinor-libcbc-dev libopenblas-dev libopenblas0-pthread libomp-22-dev
  python3 python3-numpy python3-pytest python3-networkx python3-torch
  python3-torchvision python3-onnx
  python3-matplotlib
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
