"""Every bound stackcheck puts on what it reads, in one place (see docs/security.md).

Input comes from other people: an image from any registry, a host in any state, text pasted from
anywhere. Each reader takes its bound from here, so a limit is named once, documented once and
tested once (tests/test_limits.py), and raising one is a one-line change.
"""

from __future__ import annotations

# -- loader configuration ---------------------------------------------------------------------
# ``include`` nesting in /etc/ld.so.conf; glibc's ldconfig has no limit but real files nest 1-2.
LDSO_INCLUDE_DEPTH = 8
# Files one ld.so.conf expansion may read in all (each read once: a visited set stops loops).
LDSO_MAX_FILES = 512
# LD_LIBRARY_PATH entries taken into the search path; the rest are ignored (and said so).
LD_LIBRARY_PATH_MAX_ENTRIES = 1024

# -- ELF --------------------------------------------------------------------------------------
# Largest region of an ELF file read in one piece (header tables, dynamic segment); a section
# that claims more is searched in chunks, and never past the end of the file.
ELF_MAX_REGION = 16 << 20

# -- subprocesses -----------------------------------------------------------------------------
# Bytes kept from a probe command's stdout (nvidia-smi's fullest -q output is ~100 KB a GPU).
SUBPROCESS_OUTPUT_BYTES = 4 << 20
# Bytes kept from its stderr (only the first line is ever shown).
SUBPROCESS_STDERR_BYTES = 64 << 10

# -- pasted text ------------------------------------------------------------------------------
# Bytes of a pasted report `triage` reads; the rest is cut, and the report says so.
PASTED_TEXT_BYTES = 8 << 20  # a 64-rank NCCL_DEBUG=INFO log (~5 MB) fits whole

# -- files named on the command line ------------------------------------------------------------
# A snapshot, baseline or report JSON file (a fleet of 10,000 nodes writes ~2 MB a node at most).
JSON_FILE_BYTES = 256 << 20
# Nesting of any JSON document read (snapshots nest ~8 levels, image manifests ~5).
JSON_MAX_DEPTH = 64
# A configuration file (.stackcheck.toml, pyproject.toml).
CONFIG_FILE_BYTES = 1 << 20
# One matrix table file, bundled or from --matrix-dir (the largest bundled one is ~100 KB).
MATRIX_FILE_BYTES = 16 << 20

# -- Dockerfiles -------------------------------------------------------------------------------
# A Dockerfile read by `lint-dockerfile`, `scan --dockerfile` or triage (the largest real ones
# are ~20 KB).
DOCKERFILE_BYTES = 1 << 20
# All build steps' text after ARG/ENV expansion: a 1 MiB file that grows past this is hostile.
DOCKERFILE_EXPANDED_BYTES = 16 << 20
# `COPY --from` stages followed back for what a copy brings; deeper chains are not followed.
DOCKERFILE_STAGE_DEPTH = 32

# -- fleet ------------------------------------------------------------------------------------
# Output kept from one node's probe under `fleet --slurm` (a snapshot is ~100 KB); a node past
# it answers "garbage".
FLEET_NODE_OUTPUT_BYTES = 64 << 20

# -- images -----------------------------------------------------------------------------------
# Members of one layer's tar (real layers hold up to a few hundred thousand); the walk costs
# ~15 us a member here, so a layer at the bound takes ~15 s, not forever.
TAR_MAX_MEMBERS = 1_000_000
# Small members of a one-pass (compressed) archive kept in memory until its manifest is read:
# manifests and configs, a few KB each.
KEPT_MEMBER_BYTES = 64 << 20
# A layer cache entry, inflated (an NGC image's largest layer index is a few MB).
CACHE_ENTRY_BYTES = 256 << 20
# Directory depth of a path inside an image (PATH_MAX is 4096 bytes, so ~2,000 levels at most).
TREE_MAX_DEPTH = 4096

# -- plan -------------------------------------------------------------------------------------
# The largest job `plan --max-gpus` may ask the search to try (the biggest clusters today hold
# ~100,000 GPUs); the search's time grows with it (2^17 with a 1000T model: ~2 s here).
PLAN_MAX_GPUS = 1 << 17
