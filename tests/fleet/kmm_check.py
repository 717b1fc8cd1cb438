#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks deploy/kmm/*.yaml as KMM would take them, printing TAP.

Each Module is validated against the openAPIV3Schema of KMM's CRD
(deploy/kmm/crd, its origin in ORIGIN) and against the admission webhook's
rules the schema cannot say. Then, for every kernel of
packaging/prebuilt/kernels, the first mapping that matches it must name
the image `make kmod-image` tags for it, as a valid image reference once
KMM has put the kernel's release into it. A broken copy of the Module
must fail the same checks: the checker can fail.
"""
import copy
import re
import sys

import jsonschema
import yaml

CRD = "deploy/kmm/crd/kmm.sigs.x-k8s.io_modules.yaml"
MODULES = ["deploy/kmm/iterkit-module.yaml", "deploy/kmm/iterkit-module-sign.yaml"]
KERNELS = "packaging/prebuilt/kernels"
REPO = "registry.example.com/iterkit/iterkit-kmod"
# The reference grammar of the distribution project: a tag is 1 to 128
# word characters, dots and dashes, not starting with either of those.
TAG = re.compile(r"^[\w][\w.-]{0,127}$")

n = 0
failed = 0


def tap(ok, name, diag=None):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {n} {name}")
    if not ok and diag:
        for line in str(diag).splitlines():
            print(f"# {line}")


def schema_of(crd):
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1beta1":
            return v["schema"]["openAPIV3Schema"]
    raise SystemExit("no v1beta1 in the CRD")


def webhook_errors(module):
    """What KMM's admission webhook would refuse, as a list of reasons."""
    errs = []
    meta = module.get("metadata", {})
    if len(meta.get("name", "")) + len(meta.get("namespace", "")) > 41:
        errs.append("name and namespace longer than 41 characters together")
    container = module["spec"].get("moduleLoader", {}).get("container", {})
    modprobe = container.get("modprobe", {})
    if not modprobe.get("moduleName") and not modprobe.get("rawArgs"):
        errs.append("modprobe needs moduleName (or rawArgs)")
    dirname = modprobe.get("dirName", "/opt")
    for i, m in enumerate(container.get("kernelMappings", [])):
        if ("regexp" in m) == ("literal" in m):
            errs.append(f"mapping {i}: exactly one of regexp and literal")
        if "regexp" in m:
            try:
                re.compile(m["regexp"])
            except re.error as e:
                errs.append(f"mapping {i}: regexp does not compile: {e}")
        image = m.get("containerImage") or container.get("containerImage", "")
        if ":" not in image and "@" not in image:
            errs.append(f"mapping {i}: image {image!r} names no tag or digest")
        sign = m.get("sign") or container.get("sign")
        if sign:
            files = sign.get("filesToSign") or []
            if not files:
                errs.append(f"mapping {i}: sign needs filesToSign")
            for f in files:
                if not f.startswith(dirname + "/"):
                    errs.append(f"mapping {i}: {f} is not under {dirname}/")
    return errs


def substitute(template, kernel, module):
    """KMM's envsubst of an image name: ${VAR} and $VAR, nothing else."""
    parts = re.split(r"[.,-]", kernel)
    env = {
        "KERNEL_FULL_VERSION": kernel, "KERNEL_VERSION": kernel,
        "KERNEL_XYZ": ".".join(parts[:3]), "KERNEL_X": parts[0],
        "KERNEL_Y": parts[1], "KERNEL_Z": parts[2],
        "MOD_NAME": module["metadata"]["name"],
        "MOD_NAMESPACE": module["metadata"].get("namespace", ""),
    }
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), ""), template)


def image_for(module, kernel):
    """The image of the first mapping that matches the kernel (Go's
    regexp.MatchString: a search, anchored only by the pattern), or None."""
    container = module["spec"]["moduleLoader"]["container"]
    for m in container["kernelMappings"]:
        if m.get("literal") == kernel or ("regexp" in m and re.search(m["regexp"], kernel)):
            return substitute(m.get("containerImage") or container["containerImage"], kernel, module)
    return None


def valid_reference(image):
    name, _, tag = image.rpartition(":")
    return bool(name) and "/" in name and TAG.match(tag) is not None


def main():
    with open(CRD) as f:
        validator = jsonschema.Draft7Validator(schema_of(yaml.safe_load(f)))
    kernels = []
    with open(KERNELS) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                kernels.append(line[0])
    tap(len(kernels) > 0, f"{KERNELS} lists kernels ({len(kernels)})")

    modules = {}
    for path in MODULES:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        tap(len(docs) == 1 and docs[0].get("kind") == "Module", f"{path}: one Module")
        module = docs[0]
        modules[path] = module
        errs = sorted(validator.iter_errors(module), key=lambda e: list(e.path))
        tap(not errs, f"{path}: valid against KMM's CRD schema",
            "\n".join(f"{list(e.path)}: {e.message}" for e in errs))
        errs = webhook_errors(module)
        tap(not errs, f"{path}: passes the admission webhook's rules", "\n".join(errs))

    module = modules[MODULES[0]]
    for k in kernels:
        want = f"{REPO}:{k.replace('+', '_')}"
        got = image_for(module, k)
        tap(got == want, f"{k} maps to the image make kmod-image tags for it",
            f"got:  {got}\nwant: {want}")
    got = image_for(module, "6.8.0-51-generic")
    tap(got == f"{REPO}:6.8.0-51-generic" and valid_reference(got),
        "a release without '+' maps to an image tagged with it", got)
    got = image_for(module, "6.12.999+deb12-cloud-amd64")
    tap(got is None, "a Debian kernel not listed maps to no image (no invalid tag)", got)
    bad = [image_for(module, k) for k in kernels]
    tap(all(valid_reference(i) for i in bad), "every mapped image is a valid reference",
        "\n".join(i for i in bad if not valid_reference(i)))
    sign = modules[MODULES[1]]["spec"]["moduleLoader"]["container"]["kernelMappings"][0]["sign"]
    files = [substitute(f, "6.12.95+deb12-cloud-amd64", module) for f in sign["filesToSign"]]
    tap(files == ["/opt/lib/modules/6.12.95+deb12-cloud-amd64/iterkit.ko"],
        "filesToSign names the module where make kmod-image puts it", files)

    # The checks can fail: a broken Module must not pass them.
    broken = copy.deepcopy(module)
    del broken["spec"]["selector"]
    tap(any(True for _ in validator.iter_errors(broken)), "a Module without spec.selector fails the schema")
    broken = copy.deepcopy(module)
    broken["spec"]["moduleLoader"]["container"]["kernelMappings"] = []
    tap(any(True for _ in validator.iter_errors(broken)), "a Module without kernel mappings fails the schema")
    broken = copy.deepcopy(module)
    broken["spec"]["moduleLoader"]["container"]["kernelMappings"][0]["regexp"] = ".*"
    tap(webhook_errors(broken) != [], "a mapping with both literal and regexp fails the webhook's rules")
    broken = copy.deepcopy(modules[MODULES[1]])
    broken["spec"]["moduleLoader"]["container"]["kernelMappings"][0]["sign"]["filesToSign"] = ["/lib/iterkit.ko"]
    tap(webhook_errors(broken) != [], "filesToSign outside dirName fails the webhook's rules")

    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
