"""Render deploy/k8s/prometheusrule.yaml from the rules file: `python -m tests.deploy.prometheusrule --write`."""

from __future__ import annotations

import sys
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
RULES = DEPLOY / "prometheus" / "rules" / "reddog.rules.yaml"
TARGET = DEPLOY / "k8s" / "prometheusrule.yaml"
HEADER = """\
# Generated from deploy/prometheus/rules/reddog.rules.yaml: edit that file, then run
#   .venv/bin/python -m tests.deploy.prometheusrule --write
# (tests/deploy fails while the two differ). Your Prometheus may select rules by a label (e.g. release).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: reddog
spec:
"""


def render() -> str:
    """The rules file's groups under `spec:`, comments kept, indented two spaces."""
    lines = RULES.read_text(encoding="utf-8").splitlines()
    body = lines[next(i for i, line in enumerate(lines) if line.startswith("groups:")) :]
    return HEADER + "".join(f"  {line}\n" if line else "\n" for line in body)


if __name__ == "__main__":
    if "--write" in sys.argv:
        TARGET.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
