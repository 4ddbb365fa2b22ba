"""The Dockerfile parser a Dockerfile linter reuses: every instruction with the line it starts
on, through continuations, comments, heredocs, the escape directive and both ENV forms."""

from __future__ import annotations

from stackcheck.parsers.dockerfile import env_pairs, parse_dockerfile
from tests.corpus import body

DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG CUDA=12.8.1
ARG BASE
FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS build
ENV NCCL_DEBUG=WARN \\
    # a comment inside a continuation is dropped
    FI_PROVIDER="efa" LD_LIBRARY_PATH=/opt/amazon/ofi-nccl/lib:$LD_LIBRARY_PATH
ENV NCCL_PROTO simple

RUN <<EOF
pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128
EOF
run echo lower-case instructions count too
FROM --platform=linux/amd64 ubuntu:22.04
"""


def test_instructions_keep_their_first_and_last_line() -> None:
    dockerfile = parse_dockerfile(DOCKERFILE)
    shown = [(i.keyword, i.line, i.end_line) for i in dockerfile.instructions]
    assert shown == [
        ("ARG", 2, 2),
        ("ARG", 3, 3),
        ("FROM", 4, 4),
        ("ENV", 5, 7),
        ("ENV", 8, 8),
        ("RUN", 10, 12),
        ("RUN", 13, 13),
        ("FROM", 14, 14),
    ]
    assert next(parse_dockerfile(DOCKERFILE, first_line=100).of("RUN")).line == 109


def test_env_args_and_base_images() -> None:
    dockerfile = parse_dockerfile(DOCKERFILE)
    assert [(name, value, i.line) for name, value, i in dockerfile.env()] == [
        ("NCCL_DEBUG", "WARN", 5),
        ("FI_PROVIDER", "efa", 5),
        ("LD_LIBRARY_PATH", "/opt/amazon/ofi-nccl/lib:$LD_LIBRARY_PATH", 5),
        ("NCCL_PROTO", "simple", 8),
    ]
    assert [(name, value) for name, value, _ in dockerfile.args()] == [
        ("CUDA", "12.8.1"),
        ("BASE", None),
    ]
    assert [(image, stage) for image, stage, _ in dockerfile.base_images()] == [
        ("nvidia/cuda:${CUDA}-devel-ubuntu22.04", "build"),
        ("ubuntu:22.04", None),
    ]
    [heredoc] = [i for i in dockerfile.of("RUN") if "<<EOF" in i.arguments]
    assert "torch==2.7.1" in heredoc.arguments


def test_escape_directive() -> None:
    text = "# escape=`\nFROM mcr.microsoft.com/windows\nENV A=1 `\n    B=2\n"
    [env] = parse_dockerfile(text).of("ENV")
    assert (env.line, env.end_line, env_pairs(env.arguments)) == (3, 4, [("A", "1"), ("B", "2")])


def test_a_real_dockerfile_from_the_corpus() -> None:
    dockerfile = parse_dockerfile(body("055"))
    assert [i.keyword for i in dockerfile.instructions] == ["FROM", "RUN", "RUN", "RUN", "ENV"]
    assert next(dockerfile.env())[:2] == ("PYTHONPATH", "/vllm:${PYTHONPATH}")
