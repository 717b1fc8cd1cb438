#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deploy/kmm's Modules checked against KMM's CRD schema and its admission
# webhook's rules, and their kernel mappings against the kernels the kmod
# images are made for (tests/fleet/kmm_check.py).
cd "$(dirname "$0")/../.." || exit 1
exec python3 tests/fleet/kmm_check.py
