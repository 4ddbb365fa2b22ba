"""Lines no format claims. People state settings in sentences ("it works with
NCCL_P2P_DISABLE =1"); such ``NAME=value`` statements are read, except inside the hints that
tools print (PyTorch's "consider passing CUDA_LAUNCH_BLOCKING=1", NCCL's "run with
NCCL_DEBUG=INFO for details", accelerate's "Please set `NCCL_P2P_DISABLE="1"` and
`NCCL_IB_DISABLE="1"`"), which are advice, not settings.

Of the versions sentences state, the driver's is read ("the driver is 535.104.05", "NVIDIA
driver 550.54.15"): a driver release number cannot be mistaken for another component's; and
PyTorch's with its build tag ("torch 2.1.0+cu118", "Torch 2.0.1+cu118" in a launcher's log),
which names its build. A sentence that suggests a version ("upgrade to 550", "requires >= 535",
"try torch 2.1.0+cu121") is skipped. NCCL named with its version ("NCCL 2.10.3", "nccl version
2.19.1", "NCCL runtime: 2.26.2+cuda12.2") is read too, unless the sentence suggests a version or
says that one works ("nccl 2.11 runs ok"); a version bump ("bump nvidia-nccl-cu13 from 2.28.9
to 2.30.7") states the one it replaces. Other components named in prose ("CUDA 12.4") stay
unread: a toolkit is often named next to the driver's CUDA.

A sentence that says the program ran in a container ("I pulled the official docker image",
"inside the container") is read as that, unless it speaks of building one: no GPU is attached
during `docker build`, so what a build step saw says nothing about the running container.

A sentence that says the machines have InfiniBand or RoCE ("the cluster now has RoCE enabled",
"nodes connected by InfiniBand") is read as that, unless it denies, doubts or asks it ("no
InfiniBand", "if you have RoCE", "... disables RoCE", a question).

A sentence that says the machine has no GPU or that the program should run on the CPU ("I
don't have an NVIDIA GPU", "should decide between GPU and CPU", "fall back to CPU", "on my
MacBook", "on the CPU only nodes", Docker Hub's automated builds, hosted CI) is read as
that: a process that then finds no GPU shows the reporter's setup, not a
fault of the stack (unless the text also shows a GPU, a driver or a container). So does "(I am
using CPU only)", "I have no GPU", another vendor's GPU, and the same in other languages; how many
GPUs the machine has ("My server has 2 80G-A100") is read too.

A sentence that names a GPU request (`--gpus`, `nvidia.com/gpu`, GPU limits) as what was
missing or as the fix ("you need to set the gpu limits", "solved it by adding --gpus all") is
read as the report's cause: the container got no GPU.

A sentence that says the locked-memory limit has to be raised ("let me ask them to bump the
locked one") is read as the report's cause, beside a limit it states.

A sentence that says the GPUs are in MIG mode ("MIG is enabled on one of the GPUs", "the
configuration for MIG is following") is read as that, unless it denies, doubts or asks it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stackcheck.ingest.facts import (
    ComponentFact,
    ContainerFact,
    EnvFact,
    Fact,
    GpuFact,
    ObservationFact,
)
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.formats.stated_image import stated_image
from stackcheck.ingest.lines import Line, sentence_at, sentences
from stackcheck.probes.environment import is_recorded
from stackcheck.snapshot.model import ComponentName

# A value as a shell or a Dockerfile writes it, bare or in double quotes (`ENV
# TORCH_CUDA_ARCH_LIST="6.0 6.1 7.0+PTX"`, open-mmlab/mmdetection#2108).
# A space after `=` with none before it is a shell's empty assignment (`CUDA_VISIBLE_DEVICES=
# python x.py`, dmlc/xgboost#3953): the value is empty, not the command's first word.
_SETTING = re.compile(
    r"\b([A-Z][A-Z0-9]{1,20}_[A-Z0-9_]{2,60})(?:(?:\s{1,2}=\s{0,2}|=)"
    r"(\"[\w./:,^@+ -]{0,200}\"|[\w./:,^@+-]{1,400})|=(?=[ \t]|$))"
)
# The same setting made from Python: `os.environ["NCCL_DEBUG"] = "INFO"`, `os.environ.setdefault(
# 'CUDA_VISIBLE_DEVICES', '-1')` (scripts pasted whole set NCCL's and CUDA's variables so).
_PY_SETTING = re.compile(
    r"""\benviron(?:\[\s?(?P<q1>['"])(?P<n1>[A-Z][A-Z0-9]{1,20}_[A-Z0-9_]{2,60})(?P=q1)\s?\]"""
    r"""\s{0,2}=\s{0,2}|\.setdefault\(\s?(?P<q2>['"])(?P<n2>[A-Z][A-Z0-9]{1,20}_[A-Z0-9_]{2,60})"""
    r"""(?P=q2)\s?,\s{0,2})(?P<q3>['"])(?P<value>[^'"\n]{0,200})(?P=q3)"""
)


def _assignments(text: str) -> list[tuple[re.Match[str], str, str]]:
    """Each setting on the line as (match, name, value), shell and Python spellings, in order."""
    shell = [
        (found, found.group(1), (found.group(2) or "").strip('"').rstrip(".,"))
        for found in _SETTING.finditer(text)
    ]
    if "environ" not in text:
        return shell
    python = [
        (found, found.group("n1") or found.group("n2"), found.group("value"))
        for found in _PY_SETTING.finditer(text)
    ]
    return sorted([*shell, *python], key=lambda each: each[0].start())


# A shell comment: "#export NCCL_SHM_DISABLE=1" is a setting left out ("# " alone may be a prompt).
_COMMENTED = re.compile(r"^\s{0,8}#{1,3}(?=[A-Za-z])")
_HINT = re.compile(
    r"(?:consider passing|run with|re-?run with|try (?:setting|passing)|you can set|"
    r"set the environment variable|please set)\s{1,4}\S{0,80}"
    # a hint that names two ("Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1"`",
    # accelerate's gate for RTX 40-series cards)
    r"(?:,?\s{1,4}(?:and|or)\s{1,4}\S{0,80})?$",
    re.IGNORECASE,
)
# A setting named as what the run did without ("tested nccl-test without `NCCL_P2P_DISABLE=1`",
# "after removing NCCL_IB_DISABLE=1"): it is not set.
_WITHOUT = re.compile(
    r"\b(?:without|w/o|no\slonger\s(?:with|need(?:ing)?|sett?(?:ing)?)|unsett?(?:ing)?|"
    r"remov(?:e|ed|ing)|dropp(?:ed|ing))\s{1,4}(?:the\s)?[`'\"]?$",
    re.IGNORECASE,
)

# A setting the reporter says changed nothing ("Same behavior with `NCCL_P2P_DISABLE=1`", "it
# still hangs even with NCCL_IB_DISABLE=1", "NCCL_P2P_LEVEL=LOC did not help"): an experiment of
# the diagnosis, set for the run shown but not what the stack runs with.
_TRIED_BEFORE = re.compile(
    r"(?:\b(?:same|similar|identical)\s(?:\w{1,12}\s)?(?:behaviou?rs?|errors?|results?|issues?|"
    r"problems?|hangs?|outputs?|thing)\b|\bno\s(?:change|difference|effect)\b|\beven\b|"
    r"\bstill\s(?:hangs?|fails?|crash\w{0,2}|stuck|slow|happens?|the\ssame)\b)[^.!?]{0,40}?"
    r"\b(?:with|when\s(?:setting|using)|after\s(?:setting|adding|exporting))\s{1,4}"
    r"(?:the\s)?[`'\"]?$",
    re.IGNORECASE,
)
_TRIED_AFTER = re.compile(
    r"^[`'\"]?[^.!?]{0,30}?(?:\b(?:did|does|do|has|have)(?:n't|\snot)\s(?:help|change|fix|solve)|"
    r"\b(?:makes?|made)\sno\sdifference|\bno\s(?:effect|difference|luck|change|improvement)\b|"
    r"\bsame\s(?:error|result|issue|problem|hang)s?\b)",
    re.IGNORECASE,
)
# A sentence that says settings were tried and failed ("Tried `export NCCL_IB_DISABLE=1` and
# `export NCCL_P2P_DISABLE=1`, both didnt work", "I also tried NCCL_P2P_LEVEL=NVL without
# success", "试了 NCCL_P2P_DISABLE=1 也没用"): every setting in it is an experiment, wherever the
# verdict stands. Both the attempt and the failure must be said: "tried X=1 and it worked" is a
# workaround in effect, and so is a sentence that also says it fixed something.
_ATTEMPT = re.compile(
    r"\b(?:tried|try(?:ing)?|tested|testing|experimented|attempted|played\s(?:around\s)?with|"
    r"(?:also|even)\swith|probé|probado|intenté|versucht|probiert|essayé|tentei)\b|"
    r"试了|试过|尝试|試した|試しました",
    re.IGNORECASE,
)
_FAILED = re.compile(
    r"\b(?:did|does|do|has|have|had)(?:n't|n\u2019t|nt|\snot)\s(?:seem\sto\s|really\s)?"
    r"(?:help|change|fix|solve|resolve|work|matter|make\s(?:a|any)\sdifference)|"
    r"\b(?:no|without(?:\sany)?)\s(?:luck|success|effect|difference|change|improvement)\b|"
    r"\bto\sno\savail\b|\bin\svain\b|\bunsuccessful(?:ly)?\b|\bno\sjoy\b|"
    r"\b(?:none|neither)\s(?:of\s(?:them|these|those|which|it)\s)?(?:worked|helped|fixed|"
    r"solved|changed|made)\b|\bnothing\s(?:changed|helped|worked)\b|"
    r"\bstill\s(?:hangs?|hung|fails?|failed|crash\w{0,2}|stuck|errors?|the\ssame|get(?:ting)?|"
    r"see(?:ing)?|happens?|occurs?)\b|\bsame\s(?:\w{1,12}\s)?(?:error|result|issue|problem|"
    r"behaviou?r|hang|outcome)s?\b|\brevert(?:ed)?\s(?:it|that|this|them|back)\b|"
    r"\bno\s(?:funcionó|funciona)|sin\séxito|nicht\sgeholfen|ohne\sErfolg|sans\ssuccès|"
    r"没用|无效|不行|没有用|没有效果|还是|依然|仍然|効果なし|ダメ",
    re.IGNORECASE,
)
_WORKED = re.compile(
    r"\b(?:it|this|that|which)\s(?:finally\s|then\s)?(?:worked|works|fixed|solved|resolved|"
    r"helped)\b|\b(?:fixed|solved|resolved)\s(?:it|the|my|our)\b|\bworks\snow\b|"
    r"\bonly\s(?:works|worked)\b|"
    # right after the setting: "NCCL_P2P_DISABLE=1 works, without it ..."
    r"^[`'\"]?[\s,:)]{0,3}(?:works|worked|fixe[sd]|solve[sd]|helps|helped)\b",
    re.IGNORECASE,
)


_DRIVER = re.compile(
    # "the cluster GPU driver is version 470.82" (NVIDIA/TensorRT-LLM#331): "version" after the verb
    r"\b(?:nvidia\s)?driver(?:\sversion)?(?:\s(?:is|was|of))?(?:\sversion)?\s?[:=]?\s?(?:v|R)?"
    r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b|"
    # the number first: "on k8s gpu environment with a 418.56 driver version" (server#309)
    r"\b(?:with|on|using|have|has|a|an|the|my|our)\s(?:nvidia\s)?(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\s"
    r"(?:nvidia\s|gpu\s)?driver\b",
    re.IGNORECASE,
)
_SUGGESTION = re.compile(
    r"\b(?:upgrad\w{0,3}|updat\w{0,3}|downgrad\w{0,3}|try|should|recommend\w{0,2}|instead|"
    r"later|newer|at least|minimum|requires?|required|needs?|supports?|supported|latest|"
    r"suggest\w{0,2}|please|switch\w{0,3})\b|>=?|<",
    re.IGNORECASE,
)


_CONTAINER = re.compile(
    r"\b(?:docker|podman|nvidia-docker)\s(?:image|container)s?\b|"
    r"\b(?:in|inside|within)\s(?:the|a|my|this|our)\s(?:docker\s|podman\s)?container\b",
    re.IGNORECASE,
)
_BUILDING = re.compile(r"\bbuil(?:d|ds|ding|t)\b|dockerfile", re.IGNORECASE)
# Docker Compose's own output once the report's containers run (`Attaching to NAME`, v2's
# `⠿ Container NAME Running`); not the `up` command, which may have failed to create them.
_COMPOSE_UP = re.compile(
    r"^\s{0,4}Attaching\sto\s[\w.-]+(?:,\s[\w.-]+){0,20}\s*$|"
    r"[\u283f\u2714]\sContainer\s[\w.-]+\s{1,200}(?:Running|Started|Created|Recreated)\b"
)


_FABRIC = re.compile(
    r"\b(?:has|have|had|with|uses?|using|over|via|connected by|equipped with)\s"
    r"(?:[\w-]{1,20}\s){0,3}?(InfiniBand|RoCE(?:\s?v2)?)\b|"
    r"\b(InfiniBand|RoCE(?:\s?v2)?)\s(?:is\s|now\s){0,2}(?:enabled|network|cluster|fabric|"
    r"interconnect|NICs?|HCAs?|adapters?|cards?)\b",
    re.IGNORECASE,
)
_DOUBT = re.compile(
    r"\b(?:no|not|without|never|if|whether|disabl\w{0,3}|instead of)\b|n't\b|\?", re.IGNORECASE
)


def fabric_stated(line: Line) -> list[Fact]:
    """InfiniBand or RoCE, where a sentence of the line says the machines have it."""
    lowered = line.text.lower()
    if line.text.isascii() and "infiniband" not in lowered and "roce" not in lowered:
        return []  # _FABRIC names one or the other (case folding beyond ASCII aside)
    for sentence in sentences(line.text):
        found = _FABRIC.search(sentence)
        if found is not None and not _DOUBT.search(sentence):
            fabric = found.group(1) or found.group(2)
            return [ObservationFact(line, "rdma-fabric-stated", fabric)]
    return []


# The host's hardware path, where a sentence says it was the cause: ACS enabled ("ACS is
# enabled", "bridges that had ACS enabled", ACSCtl with a redirect bit quoted in prose), or ACS or
# the IOMMU turned off as what fixed it ("The fix was disabling ACS", "Booting the kernel with
# intel_iommu=off resolved all our problems"). Advice ("try iommu=pt", "please disable ACS") and
# a setting merely named are not statements of the cause.
_ACS_ON = re.compile(
    r"\bACS\b(?:\s\([\w\s]{1,30}\))?\s(?:is|was|were|are)\s(?:still\s|also\s)?enabled\b|"
    r"\b(?:has|had|have|with)\sACS\s(?:\([\w\s]{1,30}\)\s)?enabled\b|"
    r"\bACSCtl:[^.]{0,40}?(?:ReqRedir|CmpltRedir)\+",
    re.IGNORECASE,
)
# Intel's IOMMU is VT-d, AMD's AMD-Vi: turning either off is turning the IOMMU off.
_OFF_FIXED = re.compile(
    r"\b(?:disabl\w{1,4}|turn\w{0,3}\soff|switch\w{0,3}\soff)\s(?:the\s)?"
    r"(ACS|IOMMU|VT-d|AMD-Vi)(?![\w-])|"
    r"\b(?:intel_|amd_)?(iommu)=(?:off|pt)\b|\bpci=no(acs)\b|"
    r"\b(ACS|IOMMU|VT-d|AMD-Vi)\s(?:(?:was|is|got|being)\s)?(?:disabled|turned\soff|off)\b",
    re.IGNORECASE,
)
# What fixed it, also said as what became possible ("we were able to run the NCCL test",
# "successfully tested nccl-test without NCCL_P2P_DISABLE=1"), not what was so before it.
_FIXED = re.compile(
    r"\b(?:fix|fixed|fixes|resolved?|solved?|the\ssolution|worked|works\snow|successfully)\b|"
    r"\b(?:were|was|are|is)\s(?:now\s|then\s|finally\s)?able\sto\b",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"\bbefore\b", re.IGNORECASE)
_NO_HELP = re.compile(
    r"\b(?:did|does|do|has|have)(?:n't|\snot)\s(?:help|change|fix|solve|work)|\bno\s(?:effect|"
    r"difference|luck)\b",
    re.IGNORECASE,
)
_GDR_OFF = re.compile(
    r"\b(?:haven't|have\snot|hasn't|has\snot|didn't|did\snot|not)\s(?:been\s)?"
    r"(?:enabled?|used?|using)\s(?:the\s)?(?:GPU\s?Direct\s?RDMA|GDR(?:DMA)?)\b",
    re.IGNORECASE,
)


_CPU = re.compile(
    r"\b(?:do|does|did)(?:n't|\snot)\shave\s(?:an?\s|any\s)?(?:nvidia\s|cuda\s)?"
    r"(?:gpus?|graphics\scards?)\b|"
    r"\bno\s(?:nvidia\s|cuda\s)?(?:gpus?|graphics\scards?)\s(?:on|in)\s(?:my|this|the|our)\s"
    r"(?:machine|laptop|computer|pc|server|host|system)\b|"
    r"\b(?:machine|laptop|computer|pc|server|host|system)s?\s(?:with(?:out)?\s)?(?:no|without)\s"
    r"(?:an?\s)?(?:nvidia\s)?gpus?\b|"
    r"\bcpu[-\s]only\s(?:machine|laptop|computer|pc|server|host|system|environment)\b|"
    # "use GPU compiled code on CPU system" (dmlc/xgboost#3953): a machine named by its CPU alone.
    # Where it ran, not a build's target ("wheels for CPU systems and GPU ones").
    r"\bon\s(?:an?\s|the\s|my\s|our\s)?cpu\s(?:machines?|systems?|box(?:es)?|servers?|"
    r"hosts?)\b(?!\s(?:memory|ram|time|load|usage|calls?)\b)(?![^.?!]{0,40}\bgpus?\b)|"
    # "No GPUs are present on the host" (ray#11418): the host, not a container or a node of
    # a cluster; any word after "the" so a typo of "host" still reads.
    r"\b(?:machine|laptop|computer|pc|server|host|system|vm)\s(?:has|had)\sno\s(?:nvidia\s|cuda\s)?"
    r"(?:gpus?|graphics\scards?)\b|"
    r"\bno\s(?:nvidia\s)?gpus?\s(?:are|is|were|was)\s(?:present|installed|attached)\s"
    r"(?:on|in)\s(?:the|this|my|our)\s"
    r"(?!(?:[\w-]+\s)?(?:containers?|pods?|nodes?|images?)\b)\w+|"
    # "it's not possible to do any training without a GPU" (open-mmlab/mmdetection#4686).
    r"\b(?:run(?:s|ning)?|ran|use|using|work(?:s|ing)?|train(?:s|ed|ing)?)\s"
    r"(?:(?!docker|containers?\b|pods?\b)[\w-]+\s)"
    r"{0,3}?(?:without|with\sno)\s(?:an?\s|any\s)?(?:cuda\s|nvidia\s)?gpus?\b"
    r"(?!\s(?:flags?|requests?|options?|access|resources?)\b)"
    r"(?![^.?!]{0,60}\b(?:docker|container|pod|--gpus)\b)|"
    r"\bbetween\s(?:the\s)?gpu\sand\s(?:the\s)?cpu\b|"
    r"\bfall(?:s|ing)?\s?back\s(?:to|on)\s(?:the\s)?cpu\b|"
    r"\b(?:macbook|apple\s(?:silicon|m[1-4]))\b",
    re.IGNORECASE,
)
# More ways reporters say it (the eighth split: "(I am using CPU only)", "I have no GPU, so I
# should run it with CPU"), in the languages reports come in. Not the build ("the CPU-only version
# of torch", "CPU版本"): that is what cpu-only-build is about; nor a symptom ("it runs on the CPU
# instead of the GPU", "CPU only is used, but I have a GPU").
_BUILD_WORD = (
    r"(?![-\s]?(?:only[-\s])?(?:(?:of|for)\s)?"
    r"(?:versions?|builds?|wheels?|packages?|variant|torch|pytorch|libtorch|binar))"
)
_CPU_SAID = re.compile(
    r"(?<![\w-])(?:using|use|used|run(?:ning)?|ran|on|with|have|has|got)\s(?:the\s|a\s|my\s|an?\s)?"
    r"cpus?[-\s]only\b" + _BUILD_WORD + r"|"
    r"\b(?:i|we)(?:'m|\sam|\sare|'re)?\s(?:only\s|just\s)?(?:using|use|used)\s(?:the\s|my\s|only\s)?"
    r"cpus?\b" + _BUILD_WORD + r"|"
    r"\b(?:only|just)\s(?:have|has|got)\s(?:an?\s|the\s)?cpus?\b" + _BUILD_WORD + r"|"
    r"\b(?:i|we)\s(?:have|had|'ve|'ve\sgot|own)\sno\s(?:nvidia\s|dedicated\s|discrete\s|"
    r"cuda[-\s]capable\s|cuda\s)?(?:gpus?|graphics\scards?|video\scards?|nvidia\s(?:cards?|"
    r"adapters?))\b|"
    r"\b(?:do|does|did)(?:n't|\snot)\s(?:have|own)\s(?:an?\s|any\s)?(?:dedicated\s|discrete\s|"
    r"cuda[-\s]capable\s)(?:nvidia\s)?(?:gpus?|graphics\scards?)\b|"
    r"\b(?:do|does|did)(?:n't|\snot)\s(?:have|own)\s(?:an?\s|any\s)?nvidia\s(?:cards?|adapters?|"
    r"graphics|video\scards?)\b|"
    r"\bnon[-\s]nvidia\s(?:gpus?|graphics|cards?)\b|"
    r"\bonly\s(?:an?\s)?(?:intel|amd)\s(?:[\w-]+\s)?(?:graphics|gpus?|cards?)\b|"
    # Another vendor's GPU is no NVIDIA one: "I have an AMD Radeon RX 6800", "using Intel Arc".
    r"\b(?:have|has|using|use|with)\s(?:an?\s)?(?:AMD\s)?(?:Radeon|Intel\sArc)\b|"
    r"\b(?:have|has|using|use|with)\s(?:an?\s)?AMD\s(?:GPUs?|graphics\scards?|cards?)\b|"
    # An Intel integrated GPU named as the machine's ("I'm using a integrated Intel GPU(iris xe
    # graphics)", lora-scripts#101), unless an NVIDIA one is named beside it (a laptop has both).
    r"\b(?:have|has|using|use|with|on)\s(?:an?\s|my\s|the\s|only\s)?(?:integrated\s|onboard\s)?"
    r"Intel\s(?:integrated\s)?(?:Iris|UHD|HD\sGraphics|GPU|graphics)\b"
    r"(?![^.?!]{0,80}\b(?:nvidia|geforce|cuda[-\s]capable|MX\d{3})\b)|"
    r"\b(?:want|wants|wanted|need|needs|should|must|would\slike|'d\slike|trying|try|tried|have|"
    r"has)\sto\s(?:run|use|train|infer|test|execute|do)\s(?:[\w-]+\s){0,3}?(?:on|with|using|via)\s"
    r"(?:the\s|my\s|only\s|a\s)?cpus?\b(?!\s(?:instead|rather))|"
    r"\bon\s(?:my|an?)\s(?-i:Mac)(?:book)?(?:\s(?:pro|air|mini))?\b|"
    # A runtime or mode chosen for the CPU: "I tried to run the code on colab with CPU mode"
    # (facebookresearch/detectron2#3888), "in CPU mode", "using the CPU runtime".
    r"\b(?:in|with|on|using|under)\s(?:the\s|a\s)?cpu\s(?:mode|runtime)\b|"
    # The CPU device named as what the program runs with: 'run d2 with "cpu" key'
    # (facebookresearch/detectron2#2640), "run it with the `cpu` device".
    r"\b(?:run|runs|ran|running|use|uses|using)\s(?:[\w-]+\s){0,3}?(?:with|on|using)\s(?:the\s)?"
    r"[\"'`]cpu[\"'`](?:\s(?:key|device|option|flag|setting|mode))?|"
    # Chinese, Japanese, Korean: no (discrete) graphics card / GPU; only a CPU; using the CPU.
    r"(?:没有|沒有|无|沒)(?:独立|獨立|英伟达|NVIDIA|nvidia|N卡)?的?(?:显卡|顯卡|GPU|gpu)|"
    r"(?:只有|仅有|僅有|用的是|使用的是|纯|純)\s?(?:cpu|CPU)(?!版)|"
    r"GPU(?:が|は)?(?:ない|無い|ありません|持っていない|搭載していない)|GPUなし|CPUのみ|CPUしか|"
    r"GPU가\s?없|그래픽\s?카드가\s?없|"
    # Spanish, Portuguese, Italian, French, German, Russian.
    r"\bno\stengo\s(?:una\s)?(?:gpu|tarjeta\sgr[aá]fica)|\bn[ãa]o\stenho\s(?:uma\s)?(?:gpu|"
    r"placa\sde\sv[ií]deo)|\bnon\sho\s(?:una\s)?(?:gpu|scheda\sgrafica)|"
    r"\b(?:sin|sem|senza|sans|ohne)\s(?:una\s|uma\s)?gpu\b|\b(?:solo|somente|apenas|nur)\s"
    r"(?:(?:con|com|a|la|eine)\s)?cpu\b|"
    r"\bje\sn'ai\spas\sde\s(?:gpu|carte\sgraphique)|"
    r"\bkeine\s(?:nvidia[-\s]?)?(?:gpu|grafikkarte)\b|"
    r"\bнет\s(?:(?:дискретной|nvidia)\s)?(?:видеокарты|gpu|видюхи)|"  # noqa: RUF001
    r"\bбез\s(?:gpu|видеокарты)|\bтолько\s(?:на\s)?(?:cpu|процессор)",  # noqa: RUF001
    re.IGNORECASE,
)
# What the CPU is said to be used against: a symptom of a CPU build, not the reporter's choice;
# or an NVIDIA GPU named beside it ("OS X on a Mac Pro with a GTX 680").
_CPU_SYMPTOM = re.compile(
    r"\b(?:instead\sof|rather\sthan)\s(?:the\s|my\s)?(?:gpus?|cuda)\b|\bbut\s(?:i|we)\shave\s"
    r"(?:an?\s)?(?:nvidia\s)?(?:gpu|rtx|gtx)|而不是\s?(?:gpu|GPU)|"
    r"\b(?:GTX|RTX|Quadro|Tesla|GeForce|TITAN)\b",
    re.IGNORECASE,
)
# What a sentence about a missing GPU may be about, other than the reporter's machine.
_GPU_HOLDER = re.compile(r"\b(?:nodes?|pods?|kubernetes|k8s|kubelet)\b", re.IGNORECASE)

# An Apple-silicon Mac has no NVIDIA GPU to give CUDA (older Intel Macs could, so macOS alone is
# not enough): an M-series chip named as a Mac's, a Mac said to lack CUDA or a GPU, or PyTorch's
# Apple-GPU device asked for. "Mac" keeps its case, so a "MAC address" is not one.
_MAC = re.compile(
    r"\bM[1-4](?:\s(?i:pro|max|ultra))?\s(?i:chip|mac(?:book)?)\b|\bM\s?-?series\s(?i:chip|mac)|"
    r"\bMac(?i:book)?(?:\s(?i:pro|air))?(?:\s20\d\d)?\s(?:(?i:with)\s)?(?:an?\s)?M[1-4]\b|"
    r"\bMac(?i:book)?\b[^.?!]{0,60}\b(?i:cuda|gpus?)\b[^.?!]{0,30}(?i:\bnot\b|n't\b|unavailable)|"
    r"\bMac(?i:book)?\b[^.?!]{0,30}(?i:doesn't|does\snot|don't|has\sno|without)\s[^.?!]{0,20}"
    r"\b(?i:cuda|nvidia|gpu)|"
    r"""(?:default\s?=\s?|device\s?=\s?|\.to\(\s?|torch\.device\(\s?)["']mps["']|"""
    r"\btorch\.backends\.mps\b|\b(?i:on|using|with)\san?\sM[1-4](?:\s(?i:pro|max|ultra))?\b(?![-\d])"
)


# NCCL on sockets where EFA or InfiniBand is meant, stated as what happened ("NCCL silently
# falls back to its socket transport on EFA-enabled AWS hosts"); not a condition ("if you still
# see NET/Socket") or a question.
# The same said as where the traffic went ("all NCCL communication may go through Ethernet
# rather than EFA"), or as the OFI plugin (aws-ofi-nccl, which carries NCCL over EFA) present but
# not found ("the OFI plugin libraries are present ... just not discoverable by NCCL").
_SOCKETS_STATED = re.compile(
    r"\bNCCL\b[^.]{0,40}?\bf(?:alls?|ell)\sback\sto\s(?:its\s|the\s)?(?:TCP\s)?"
    r"sockets?\b[^.]{0,60}?\b(EFA|InfiniBand|RoCE)\b|"
    r"\bNCCL\b[^.]{0,40}?\b(?:go(?:es)?|went|runs?|ran|flows?|is\ssent|was\ssent)\s"
    r"(?:over|through|via)\s(?:the\s)?(?:TCP|Ethernet|sockets?)\b[^.]{0,30}?"
    r"\b(?:rather\sthan|instead\sof)\s(?:over\s|through\s)?(?:the\s)?(EFA|InfiniBand|RoCE)\b|"
    r"\b(?:OFI|aws-ofi-nccl)\s(?:net\s)?plugin\b[^.]{0,160}?\bnot\s(?:discoverable|found|"
    r"loaded|picked\sup)\sby\sNCCL\b|"
    # NCCL's own transport names: "fails to use the Net/IB but instead relies on NET/SOCKET".
    r"\bNET/(IB)\b[^.]{0,60}?\b(?:instead|rather)\b[^.]{0,30}?\bNET/Socket\b|"
    r"\bNET/Socket\b[^.]{0,30}?\b(?:instead\sof|rather\sthan)\s(?:the\s)?NET/(IB)\b|"
    # The path stated as lost: "NCCL cannot run over EFA on EKS", or an image said to have
    # stopped shipping the OFI plugin (NVIDIA-NeMo/Megatron-Bridge#5033).
    r"\bNCCL\s(?:can(?:not|'t)|could(?:\snot|n't)|won't|does(?:\snot|n't)|did(?:\snot|n't))\s"
    r"(?:run|go|work|communicate|use)\s(?:over\s|on\s|via\s|through\s)?(?:the\s)?"
    r"(EFA|InfiniBand|RoCE)\b|"
    r"\b(?:no\slonger\s(?:ships?|includes?|contains?|bundles?)|(?:does|did)(?:n't|\snot)\s"
    r"(?:ship|include|contain|bundle))\s(?:the\s)?[`*]{0,2}(?:aws-ofi-nccl|OFI)[`*]{0,2}\s"
    r"(?:net\s)?plugin\b",
    re.IGNORECASE,
)


# The fallback said without NCCL's name, beside the net plugin or the fabric it bypassed ("a
# plugin naming bug (NCCL 2.29+ looks for libnccl-net-aws-ofi.so ...) that causes silent
# fallback to TCP sockets", NVIDIA/exemplar-performance#39).
_FALLBACK = re.compile(
    r"\bf(?:alls?|ell|alling)[\s-]?back\sto\s(?:its\s|the\s)?(?:TCP\s)?sockets?\b"
)
_DENIED = re.compile(r"\b(?:not|never|no|avoid\w{0,3}|prevent\w{0,3}|without)\b|n't\b", re.I)
_PLUGIN_OR_FABRIC = re.compile(
    r"libnccl-net|\bnet\splugin|\bOFI\b|\b(EFA|InfiniBand|RoCE)\b", re.IGNORECASE
)


def sockets_stated(line: Line) -> list[Fact]:
    for sentence in sentences(line.text):
        found = _SOCKETS_STATED.search(sentence)
        if found is not None and _asserted(sentence):
            named = next((group for group in found.groups() if group), None)
            fabric = "InfiniBand" if named and named.upper() == "IB" else named or "EFA"
            return [ObservationFact(line, "socket-fallback-stated", fabric)]
        fallback = _FALLBACK.search(sentence)
        if (
            fallback is not None
            and _asserted(sentence)
            and not _DENIED.search(sentence[: fallback.start()])
        ):
            named = [m.group(1) for m in _PLUGIN_OR_FABRIC.finditer(sentence)]
            if named:
                fabric = next((n for n in named if n), "EFA")
                return [ObservationFact(line, "socket-fallback-stated", fabric)]
    return []


# An NVLink stated down ("when one NVLink is down on a GPU", "two of the NVLinks were down"),
# inactive, or in a bad state ("the local NVLink got into a bad state", NVIDIA/DCGM#304).
_NVLINK_DOWN = re.compile(
    r"\b(?:one|an?|some|two|three|\d{1,2})\s(?:of\s(?:the\s|its\s)?)?NVLinks?\s"
    r"(?:is|was|are|were|went|goes)\s(?:\w{1,12}\s)?down\b|"
    r"\bNVLinks?\s(?:\d{1,2}\s)?(?:is|was|are|were|went)\s(?:\w{1,12}\s)?(?:down|inactive)\b|"
    r"\bNVLinks?\s(?:\d{1,2}\s)?(?:is|was|are|were|went|got|gets|goes)\s(?:in|into)\s"
    r"(?:an?\s)?(?:bad|broken|degraded|faulty|unhealthy|inactive|error)\sstate\b",
    re.IGNORECASE,
)
# NVLinks said absent where they belong, a negation being the statement itself: "NV links were
# not seen from nvidia-smi", "the 2 GPU were not using NVLink but communicating via PCIe"
# (azhpc-images#443); a condition ("if the NVLinks are not active") is not the report's word.
_NVLINK_NOT_UP = re.compile(
    r"\bNV\s?Links?\s(?:were|was|are|is)(?:n't|\snot)\s(?:seen|active|detected|up|shown|visible|"
    r"listed)\b|\b(?:were|was|are|is)(?:n't|\snot)\susing\sNV\s?Link\b[^.]{0,30}?\b(?:PCIe|PCI-E)\b",
    re.IGNORECASE,
)


# MIG named as the GPUs' state: "MIG is enabled on ...", "in MIG mode", "the configuration for
# MIG", "MIG instances"; the word in upper case or capitalised ("MiG mode", "Mig instances"), not
# a lower-case substring (<M> below).
_MIG_WORD = r"M(?:IG|iG|ig)"
_MIG = re.compile(
    (
        r"\b<M>(?:[-\s]mode)?\s(?:(?:is|was|are)\s(?:enabled|on|configured|activated|used|in\suse)|"
        r"enabled|configured|activated)\b|"
        r"\b(?:in|with|under|into)\s<M>\smode\b|\bconfiguration\sfor\s<M>\b|"
        # "the MIG mode of A100 GPU is enabled"; "turn on mig", "turn mig on a device" (any case)
        r"\b<M>[-\s]mode\sof\s(?:the\s|an?\s|all\s)?(?:[\w-]{1,20}\s){0,3}?(?:GPUs?|cards?|devices?)\s"
        r"(?:is|was|are|were)\s(?:enabled|on)\b|"
        r"\b(?i:turn(?:s|ed|ing)?\son\s(?:the\s)?mig|turn(?:s|ed|ing)?\s(?:the\s)?mig(?:\smode)?\son)\b|"
        r"\b(?i:I|we|they|had|have|has|was|were)\s(?:\w{1,12}\s)?enabled\s(?:the\s)?<M>\b|"
        r"\b<M>[-\s](?:enabled|partitioned)\b|"
        # "any partitioned Nvidia A100 card": only a MIG-capable GPU is partitioned (MIG is how)
        r"\b(?i:partitioned)\s(?:(?i:nvidia)\s)?(?:A100|A30|H100|H200|H800|H20|B200|B300|GB200)\b|"
        r"\b<M>\s(?:GPU\s|compute\s)?(?:instances?|slices?|partitions?)\b|"
        # "trying to use NCCL with MIG", "running DDP on MIG" (not "with MIG disabled")
        r"\b(?i:use|using|used|run|running|train|training)\s(?:[\w-]+\s){0,3}?(?:with|on|over)\s<M>\b"
        r"(?![-\w]|\s(?:mode\s)?(?:disabled|off)\b)"
    ).replace("<M>", _MIG_WORD)
)


def mig_stated(line: Line) -> list[Fact]:
    """MIG, where a sentence of the line says the GPUs are in MIG mode."""
    for sentence in sentences(line.text):
        found = _MIG.search(sentence)
        # Doubt counts in the clause that says it: "MIG is enabled, but no GPU instance was
        # created" states MIG; "MIG is not enabled, but ..." does not.
        if found is not None and not _DOUBT.search(_clause(sentence, found.start(), found.end())):
            return [ObservationFact(line, "mig-stated", found.group(0))]
    return []


_CONTRAST = re.compile(r",?\s\b(?:but|however|yet|whereas)\b", re.IGNORECASE)


def _clause(sentence: str, start: int, end: int) -> str:
    """The part of ``sentence`` around [start, end) that no "but" separates from it."""
    before = [m.end() for m in _CONTRAST.finditer(sentence, 0, start)]
    after = _CONTRAST.search(sentence, end)
    return sentence[before[-1] if before else 0 : after.start() if after else len(sentence)]


def _asserted(sentence: str) -> bool:
    """Whether a sentence states something rather than asking it or making it a condition."""
    return "?" not in sentence and not re.search(r"\bif\b", sentence, re.IGNORECASE)


# A GPU request named as what was missing, or as the fix: "need to set the gpu limits", "forgot
# --gpus all", "solved it by adding nvidia.com/gpu", "without the --gpus flag", "has no NVIDIA
# device reservation".
_GPU_REQUEST = re.compile(
    r"\b(?:need(?:s|ed)?\sto|ha(?:d|ve|s)\sto|forg[oe]t(?:ten)?(?:\sto)?)\s(?:also\s)?"
    r"(?:set|add|specify|pass|request|claim|use)\b|"
    r"\b(?:fixed|solved|resolved)\s(?:it\s|this\s)?(?:by|after)\s(?:add|sett|specify|pass)\w{0,4}\b|"
    r"\bafter\s(?:add|sett|specify|pass|enabl)\w{0,4}\b|\b(?:without|missing|lacks?)\s|"
    r"\b(?:has|had|have)\sno\s",
    re.IGNORECASE,
)
_GPU_REQUESTED = re.compile(
    r"(?:--gpus\b|nvidia\.com/gpu\b|\bgpu\s(?:limits?|requests?)\b|--runtime[=\s]nvidia\b|"
    # compose's GPU request: "has no NVIDIA device reservation", "is missing the
    # deploy.resources.reservations.devices block" (odysseus-dev/odysseus#2659)
    r"\b(?:nvidia|gpu)\sdevice\sreservations?\b|\breservations\.devices\b|"
    # the runtime's device list and a pod's runtime class: "adding NVIDIA_VISIBLE_DEVICES=all",
    # "runtimeClassName: nvidia"
    r"\bNVIDIA_VISIBLE_DEVICES=(?:all|\d)|\bruntimeClassName:?\s?[\"']?nvidia\b)",
    re.IGNORECASE,
)
# "Adding runtimeClassName: nvidia to the pod spec fixed it": the request, then what it did.
_ADDING = re.compile(r"\b(?:add|adding|added|setting|passing|specifying)\s", re.IGNORECASE)
_THEN_FIXED = re.compile(
    r"\b(?:fixe[sd]|solved|resolved|helped)\b|\b(?:it|that|this)\s(?:now\s)?worked\b|\bnow\s(?:it\s)?works\b",
    re.IGNORECASE,
)


# A BIOS option or boot setting that turns the IOMMU off, as a list of settings gives it
# ("AMD CBS->NBIO Common option ->IOMMU=Disable", "IOMMU: Disabled"); alone it is a setting,
# the cause only where the text says the P2P workaround was then dropped (SC1126).
_IOMMU_OFF_SET = re.compile(r"\bIOMMU\s?[=:]\s?(?:Disabled?|off)\b", re.IGNORECASE)


def hardware_path_stated(line: Line) -> list[Fact]:
    """ACS or the IOMMU stated as the cause, GPUDirect RDMA stated as not enabled, an NVLink
    stated down."""
    facts: list[Fact] = []
    if "OMMU" in line.text.upper() and (off := _IOMMU_OFF_SET.search(line.text)) is not None:
        facts.append(ObservationFact(line, "iommu-off-set", off.group(0)))
    for sentence in sentences(line.text):
        if "?" in sentence or _SUGGESTION.search(sentence):
            continue
        found = _ACS_ON.search(sentence)
        if found is not None and not re.search(r"\bnot\b|n't\b", sentence[: found.end()]):
            facts.append(ObservationFact(line, "iommu-acs-stated", f"ACS: {found.group(0)}"))
        elif (
            (off := _OFF_FIXED.search(sentence)) is not None
            and _FIXED.search(sentence)
            and not _BEFORE.search(sentence[: off.start()])
            and not _NO_HELP.search(sentence)
        ):
            named = next(g for g in off.groups() if g).upper()
            what = "ACS" if named == "ACS" else "IOMMU"
            facts.append(ObservationFact(line, "iommu-acs-stated", f"{what}: {off.group(0)}"))
        if _GDR_OFF.search(sentence):
            facts.append(ObservationFact(line, "net-gdr", "no"))
        if (down := _NVLINK_DOWN.search(sentence)) is not None and not re.search(
            r"\b(?:if|not|no|never|none)\b|n't\b", sentence, re.IGNORECASE
        ):
            facts.append(ObservationFact(line, "nvlink-down-stated", down.group(0)))
        elif (absent := _NVLINK_NOT_UP.search(sentence)) is not None and not re.search(
            r"\b(?:if|whether|unless)\b", sentence, re.IGNORECASE
        ):
            facts.append(ObservationFact(line, "nvlink-down-stated", absent.group(0)))
    return facts


# Raising the locked-memory limit named as what is needed: "ask them to bump the locked one",
# "increase max locked memory". Tools' own hints ("UCX ERROR ... Please set max locked memory")
# are the message, not the reporter's word.
_TOOL_HINT = re.compile(r"\b(?:ERROR|WARN(?:ING)?|Please)\b")
_MEMLOCK_RAISE = re.compile(
    r"\b(?:bump|rais|increas|lift)\w{0,3}\b.{0,40}?"
    r"\b(?:locked(?:\smemory)?|memlock|ulimit\s-l|max\slocked)\b|"
    # "ucx works up until the point it needs ulimit -l to be unlimited" (usernetes#373)
    r"\bneeds?\s(?:the\s)?(?:ulimit\s-l|memlock|RLIMIT_MEMLOCK|locked\smemory(?:\slimit)?)\s"
    r"(?:to\sbe\s|set\sto\s)?unlimited\b|"
    # "it is necessary to setup unlimited memlock" (a Slurm job under systemd's soft limit)
    r"\b(?:necessary|needed|required|must|need)\s(?:to\s)?(?:set\s?up|set|configure|have|use)\s"
    r"(?:an?\s)?unlimited\s(?:memlock|locked\smemory|max\slocked)\b|"
    # the fix said as systemd's unit setting: "add LimitMEMLOCK=infinity to the ... service"
    r"\b(?:add|adding|added|set|setting|use|using|put)\s(?:\S+\s){0,2}?"
    r"(?:Default)?LimitMEMLOCK=(?:infinity|unlimited)\b",
    re.IGNORECASE,
)


# The locked-memory limit said to be checked and not at fault: "Nothing in `dmesg`, memlock
# limits or IB port state indicated a problem" (an ibv_reg_mr ENOMEM from the kernel's CMA
# accounting, MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark#259), "memlock is already
# unlimited", "ulimit -l shows unlimited", "it is not a memlock issue", "ruled out memlock".
_MEMLOCK_NAME = r"(?:memlock|ulimit\s-l|RLIMIT_MEMLOCK|(?:max\s)?locked[-\s]memory)"
_MEMLOCK_FINE = re.compile(
    r"\b(?:nothing|none)\s(?:in|of)\b[^.?!;]{0,120}?\b" + _MEMLOCK_NAME + r"\b[^.?!;]{0,80}?"
    r"\b(?:indicated|showed|suggested|pointed\sto|revealed)\s(?:a|any)\s(?:problem|issue)|"
    r"\b" + _MEMLOCK_NAME + r"(?:\s(?:limits?|setting|value))?\s(?:is|was|are|were|shows?|showed"
    r"|says|said|returns|returned|reports?)\s(?:already\s|also\s)?(?:set\sto\s)?"
    r"(?:unlimited|infinity|fine|ok|okay|not\sthe\s(?:issue|problem|cause))\b|"
    r"\bnot\s(?:an?\s|the\s)?" + _MEMLOCK_NAME + r"(?:\slimit)?\s(?:issue|problem|cause)\b|"
    r"\brul(?:ed|ing)\sout\s(?:the\s)?" + _MEMLOCK_NAME,
    re.IGNORECASE,
)


def memlock_raise_stated(line: Line) -> list[Fact]:
    """That the locked-memory limit has to be raised, where a sentence says so (not a question
    or a condition); or that it was checked and is not at fault."""
    low = line.text.lower()
    if "lock" not in low and "ulimit" not in low:  # every alternative names one: prose's hot path
        return []
    for sentence in sentences(line.text):
        if not _asserted(sentence) or _TOOL_HINT.search(sentence):
            continue
        found = _MEMLOCK_RAISE.search(sentence)
        if found is not None:
            return [ObservationFact(line, "memlock-raise-stated", found.group(0))]
        fine = _MEMLOCK_FINE.search(sentence)
        if fine is not None:
            return [ObservationFact(line, "memlock-ruled-out", fine.group(0))]
    return []


# Hosted notebook services whose default runtime has no GPU: an accelerator is chosen per
# notebook (Colab's "Change runtime type", Kaggle's "Accelerator"), and a CPU runtime has no
# NVIDIA driver (googlecolab/colabtools#4425, openai/jukebox#205).
_NOTEBOOK = re.compile(
    r"\b(?:google\s)?colab(?:oratory)?(?:\spro\+?)?\b|\bkaggle(?:\s(?:notebooks?|kernels?))?\b",
    re.IGNORECASE,
)


def notebook_stated(line: Line) -> list[Fact]:
    """That the program runs on a hosted notebook service."""
    low = line.text.lower()
    if "colab" not in low and "kaggle" not in low:
        return []
    found = _NOTEBOOK.search(line.text)
    return [ObservationFact(line, "notebook-hosted", found.group(0))] if found else []


# A pod's GPU limit named in a sentence ("Run scvi-tools on GKE with nvidia.com/gpu: 1"): the
# program is meant to see a GPU. (A GPU model named in passing is not read: it says nothing of
# the machine the message came from, and alone it is no tool output.)
_GPU_MEANT = re.compile(r"\bnvidia\.com/gpu[\"']?\s?[:=]\s?[\"']?[1-9]\d{0,2}\b", re.IGNORECASE)


def gpu_meant_stated(line: Line) -> list[Fact]:
    """A pod's GPU request in a sentence: a sign an NVIDIA GPU is meant for the program."""
    if "nvidia.com/gpu" not in line.text.lower():
        return []
    found = _GPU_MEANT.search(line.text)
    return [ObservationFact(line, "gpu-implied", found.group(0))] if found else []


def gpu_request_stated(line: Line) -> list[Fact]:
    """That the container lacked a GPU request, where a sentence names adding one as the need
    or the fix (not as a question or a condition)."""
    low = line.text.lower()
    # Every request _GPU_REQUESTED reads names one of these: most lines are settled here.
    if "gpu" not in low and "nvidia" not in low and "reservations.devices" not in low:
        return []
    for sentence in sentences(line.text):
        need = _GPU_REQUEST.search(sentence)
        if need is None:
            need = _ADDING.search(sentence)
            fixed = need is not None and _THEN_FIXED.search(sentence, need.end()) is not None
            need = need if fixed else None
        if need is None or not _asserted(sentence):
            continue
        request = _GPU_REQUESTED.search(sentence, need.end())
        if request is not None and request.start() - need.end() <= 40:
            said = sentence[need.start() : request.end()]
            return [ObservationFact(line, "gpu-request-stated", said)]
    return []


_IF_BEFORE = re.compile(r"\b[Ii]f\b[^.?!;]{0,40}$")
# Machines that have no GPU by design, named without "I have no GPU": a cluster's CPU nodes or
# partition (pmodels/mpich#6686, Perlmutter's "CPU only nodes"), and build services whose
# builders have none (NervanaSystems/neon#186, Docker Hub's automated builds; hosted CI). Not
# where a GPU is named beside it ("GPU runners", "CPU and GPU nodes"; self-hosted runners).
_CPU_HOST = re.compile(
    r"\bcpu[-\s]?(?:only\s)?(?:nodes?|partitions?|queues?|instances?|runners?|workers?|"
    r"clusters?)\b|(?<![a-z])cpu\s?(?:节点|分区|集群)|"
    r"\bnon[-\s]gpu\s(?:nodes?|partitions?|instances?|runners?|machines?)\b|"
    r"\b(?:hub\.docker\.com/r/\S{0,80}/builds|docker\s?hub(?:'s)?\s(?:automated\s|auto\s)?"
    r"(?:builds?|builders?|build\sservers?)|automated\sbuilds?\s(?:on|of)\sdocker\s?hub)|"
    r"\b(?:github\sactions|travis(?:[-\s]ci)?|circleci|gitlab[-\s]ci|azure\spipelines|"
    # Read the Docs' builders, not a link to a project's documentation (x.readthedocs.io).
    r"(?<![./-])read\s?the\s?docs(?!\.\w)|appveyor)\b",
    re.IGNORECASE,
)
# A `docker build` step gets no GPU (vllm-project/vllm#282: "when building a docker image,
# torch.cuda.is_available() always shows False"): what it probes finds none by design.
_BUILD_TIME = re.compile(
    r"\b(?:during|in|inside|at|while)\s(?:a\s|the\s)?(?:docker|image|container)\sbuilds?\b|"
    # A Dockerfile's RUN step named as where it ran (NVIDIA/nvidia-docker#191: "RUN" vs "CMD").
    r"\b(?:in|inside|from|during|within)\s(?:a\s|the\s|my\s)?(?:Dockerfile(?:'s)?\s)?"
    r"(?-i:RUN)\s(?:step|command|instruction|line|stage)s?\b|"
    r"\bat\sbuild[-\s]?time\b|\bwhile\sbuilding\s(?:the\s|a\s|my\s)?(?:docker\s)?"
    r"(?:images?|containers?)\b|"
    # A Dockerfile named as what ran it: its steps run in `docker build` ("there has some
    # problems when i use dockerfile to run it", facebookresearch/detectron2#56); a container is
    # started by `docker run`, which is no Dockerfile's.
    r"\b(?:when|while)\s(?:i|we)\s(?:use|used|using)\s(?:the\s|a\s|my\s|this\s)?dockerfile\b",
    re.IGNORECASE,
)
_GPU_WORD = re.compile(r"(?<!non-)(?<!non\s)\bgpus?\b|self[-\s]hosted", re.IGNORECASE)


# Every Latin-script branch of _CPU_SAID holds one of these words (its own screen finds none to
# share: the branches have no word in common); a line without one, and in ASCII, skips it.
_CPU_SAID_CUES = (
    "cpu", "gpu", "graphic", "grafi", "card", "carte", "placa", "scheda", "adapter", "radeon",
    "arc", "mac", "intel",
)  # fmt: skip


def _may_say_cpu(text: str) -> bool:
    if not text.isascii():
        return True  # the CJK and Cyrillic branches
    lowered = text.lower()
    return any(cue in lowered for cue in _CPU_SAID_CUES)


# Every Latin-script branch of the expressions that make cpu_stated's fact (_CPU_HOST,
# _BUILD_TIME, _CPU, _MAC, _CPU_SAID) holds one of these words, or `RUN` in its case: a line in
# ASCII without one states nothing, and skips them all.
_CPU_STATED_CUES = (
    *_CPU_SAID_CUES, "docker", "github", "travis", "circleci", "gitlab", "azure", "docs",
    "appveyor", "build", "apple", "chip", "mps", "m1", "m2", "m3", "m4",
)  # fmt: skip


def _may_state_cpu(text: str) -> bool:
    if not text.isascii() or "RUN" in text:
        return True
    lowered = text.lower()
    return any(cue in lowered for cue in _CPU_STATED_CUES)


def cpu_stated(line: Line) -> list[Fact]:
    """That the reporter's machine has no GPU or the program is meant to run on the CPU (or on a
    Mac, which has no NVIDIA GPU)."""
    if not _may_state_cpu(line.text):
        return []
    host = _CPU_HOST.search(line.text)
    near = line.text[max(0, host.start() - 30) : host.end() + 30] if host is not None else ""
    if host is not None and not _GPU_WORD.search(near):
        return [ObservationFact(line, "cpu-intended", host.group(0))]
    build = _BUILD_TIME.search(line.text)
    if build is not None and not _IF_BEFORE.search(line.text, 0, build.start()):
        return [ObservationFact(line, "cpu-intended", build.group(0))]
    if _GPU_HOLDER.search(line.text):
        return []  # "the nodes do not have GPUs": a cluster that lost them, not a CPU machine
    found = _CPU.search(line.text) or _MAC.search(line.text)
    if found is None and _may_say_cpu(line.text):
        said = _CPU_SAID.search(line.text)
        found = None if said is None or _CPU_SYMPTOM.search(line.text) else said
    if found is None or _IF_BEFORE.search(line.text, max(0, found.start() - 40), found.start()):
        # nothing, or a condition, often a tool's own hint: PyTorch's "If you are running on a
        # CPU-only machine, please use torch.load with map_location=..."
        return []
    return [ObservationFact(line, "cpu-intended", found.group(0))]


# An install that put the CPU-only PyTorch in place of a CUDA one, as the reporter states it
# ("when installing pytorch it installs the cpu only version", deforum-art/stable-diffusion#132;
# "changes my pytorch version from cuda118 to cpu ... I ended up with pytorch-cpu",
# Lightning-AI/pytorch-lightning#18968): a resolver (pip, conda) picked the CPU build.
_CPU_BUILD_INSTALLED = re.compile(
    r"\b(?:(?:it|pip|conda|mamba|uv|poetry|this|that|which|lightning|setup|script)\s"
    r"(?:also\s|then\s|just\s|had\s|has\s)?(?:(?:re)?install(?:s|ed)|pull(?:s|ed)|fetch(?:es|ed)|download(?:s|ed)|"
    r"cho(?:se|oses)|pick(?:s|ed)|resolv(?:es|ed)\sto)|ended\sup\swith|end\sup\swith|"
    r"(?:(?:replac(?:es|ed)|overwr(?:ites|ote))\s(?:[^.?!]|\.(?=\w)){0,20}?\b(?:py)?torch\b"
    r"(?:[^.?!]|\.(?=\w)){0,40}?\swith|"
    r"(?:chang(?:es|ed)|switch(?:es|ed)|downgrad(?:es|ed))\s(?:[^.?!]|\.(?=\w)){0,20}?\b(?:py)?"
    r"torch\b(?:[^.?!]|\.(?=\w)){0,40}?\sto))\s"
    r"(?:the\s|a\s)?(?:(?:py)?torch[-\s]cpu\b|(?:py)?torch\s(?:for|on)\s(?:the\s)?cpu\b|"
    r"cpu(?:[-\s]only)?"
    r"(?:\s(?:versions?|builds?|wheels?|variants?|packages?))?(?:\s(?:of\s)?(?:py)?torch)?"
    r"(?![-\s](?:machine|node|instance|host|server|laptop|mode|inference|training)))|"
    # passive: "only the CPU version will be reinstalled" (Comfy-Org/ComfyUI#8484)
    r"\bthe\scpu(?:[-\s]only)?\s(?:versions?|builds?|wheels?)(?:\sof\s(?:py)?torch)?\s"
    r"(?:will\sbe|is|was|gets|got|are|were)\s(?:re)?installed\b|"
    # Chinese: "(pip) installed / defaulted to / turned into the CPU version" (装的是cpu版本,
    # 默认安装的是CPU版, 变成了cpu版).
    r"(?:安装|装|下载|默认|变成|換成|换成|变为)(?:的|了|成|是|为){1,3}\s?(?:torch\s?|pytorch\s?)?"
    r"cpu\s?版|"
    # what is there, said of torch itself: "torch都是普通的cpu版本" (torch is all the plain CPU
    # build, xorbitsai/inference#3567), "the torch in the image is the CPU-only version"
    r"\b(?:py)?torch\s?(?:都|全|也|还|竟然)?(?:是|为)\s?(?:普通|默认)?(?:的)?\s?cpu\s?版|"
    r"\b(?:py)?torch\s(?:(?:installed|inside\s(?:the\s)?(?:image|container)|in\s(?:the\s)?"
    r"(?:image|container))\s)?(?:is|was)\s(?:only\s)?(?:the\s|a\s)?(?:plain\s|normal\s)?"
    r"cpu(?:[-\s]only)?\s(?:versions?|builds?|wheels?)\b",
    re.IGNORECASE,
)


def cpu_build_stated(line: Line) -> list[Fact]:
    """That an install put the CPU-only PyTorch in place of a CUDA build, where a sentence says
    so (not a question or a condition): PyTorch's own "not compiled with CUDA", in prose."""
    if "cpu" not in line.text.lower():
        return []
    for sentence in sentences(line.text):
        found = _CPU_BUILD_INSTALLED.search(sentence)
        if found is not None and _asserted(sentence):
            return [ObservationFact(line, "torch-cpu-only", found.group(0))]
    return []


# A program said to run on the CPU in place of the reporter's GPU ("yolo is using only Cpu for
# traning instead of my gpu (gtx 1080 )", ultralytics/yolov5#7639; "it trains on the CPU rather
# than the GPU"; "用的是CPU而不是GPU"): what a CPU build does on a GPU machine. Not a wish or a
# how-to ("I want to use the CPU instead of the GPU"), a question or a condition.
_CPU_INSTEAD = re.compile(
    r"\b(?:us(?:es|ing|ed)?|run(?:s|ning)?|ran|train(?:s|ing|ed)?|load(?:s|ed|ing)?|"
    r"work(?:s|ing|ed)?|(?:is|was|are|were|stays?)\son)\s(?:only\s)?(?:on\s|with\s)?(?:the\s)?"
    r"cpus?\b(?:[^.?!]|\.(?=\w)){0,40}?\b(?:instead\sof|rather\sthan)\s(?:the\s|my\s|our\s)?"
    r"(?:nvidia\s)?(?:gpus?|cuda)\b|"
    r"(?:用|使用|跑)(?:的|了)?(?:是|在)?\s?cpu\s?(?:而不是|而非)\s?(?:用\s?)?gpu",
    re.IGNORECASE,
)
_CPU_WISH = re.compile(
    r"(?:\b(?:want|wanna|wish|would\slike|prefer|how|force|forcing|option|possible|able)\b"
    r"[^.?!]{0,20}|\b(?:to|can|could|should|must|will|would|might)\s)$",
    re.IGNORECASE,
)


def cpu_instead_of_gpu_stated(line: Line) -> list[Fact]:
    """That a program ran on the CPU instead of the reporter's GPU, where a sentence says so."""
    low = line.text.lower()
    if "cpu" not in low or ("gpu" not in low and "cuda" not in low):
        return []
    for sentence in sentences(line.text):
        found = _CPU_INSTEAD.search(sentence)
        if (
            found is not None
            and _asserted(sentence)
            and _CPU_WISH.search(sentence, 0, found.start()) is None
        ):
            return [ObservationFact(line, "cpu-instead-of-gpu", found.group(0))]
    return []


def container_stated(line: Line) -> list[Fact]:
    """That the reported process ran in a container, when the sentence says so."""
    found = _COMPOSE_UP.search(line.text)
    if found is not None:
        return [ContainerFact(line, found.group(0).strip())]
    found = _CONTAINER.search(line.text)
    if found is None or _BUILDING.search(line.text):
        return []
    return [ContainerFact(line, found.group(0))]


# NCCL named with its version ("NCCL 2.10.3", "nccl version 2.19.1", "Failing NCCL runtime:
# 2.26.2+cuda12.2", "nccl 2.13" in full-width brackets), or by PyTorch's wheel of it ("the
# current version of nvidia-nccl-cu12 is 2.21.5."); a pin ("nccl==2.28.9") is not; a word between
# NCCL and the number ("NCCL before 2.29.3", "nccl-tests 2.13") is not a statement of the one in
# use, nor is a name that ends in nccl ("aws-ofi-nccl 1.7.1", "AWS OFI NCCL Version: 1.14.0",
# "libnccl"), a range ("NCCL 2.19+") or a name run into its number (a docs link's "nccl2.1.15").
_NCCL = re.compile(
    r"(?<![\w-])(?<!ofi\s)(?:nccl|nvidia-nccl-cu1\d)(?:\s(?:version|runtime|library))?"
    r"(?:\s(?:is|was))?(?:\s|\s?[:=]\s?)v?(\d\.\d{1,2}(?:\.\d{1,2})?)(?:-\d)?"
    r"(?:\+cuda\d{1,2}\.\d)?(?![\w+]|\.\w)",  # a sentence's full stop may follow
    re.IGNORECASE,
)
# NCCL's package version, alone ("Libraries: `2.25.1-1+cuda12.8`", NVIDIA/TensorRT-LLM#4238):
# three numbers, a package release and +cudaX.Y is libnccl2's form (cuDNN's and TensorRT's
# packages carry four numbers).
_NCCL_PACKAGE = re.compile(
    r"(?<![\w.])`?(\d\.\d{1,2}\.\d{1,2})-\d{1,2}\+cuda\d{1,2}\.\d{1,2}`?(?![\w.])"
)
# A version bump names the one in use first ("Bump nvidia-nccl-cu13 from 2.28.9 to 2.30.7").
_NCCL_BUMP = re.compile(
    r"(?<![\w-])(?:nvidia-)?nccl[\w-]{0,12}\sfrom\sv?(\d\.\d{1,2}\.\d{1,2})\s(?:to|->|→)\s",
    re.IGNORECASE,
)
_RANGE_WORD = re.compile(
    r"\b(?:since|from|before|after|than|until|till|to|vs\.?|versus|compatible\swith)\s$",
    re.IGNORECASE,
)
# A sentence that says a version works is the comparison, not the stack at fault.
_WORKS = re.compile(
    r"\b(?:works?|worked|working|runs?\s(?:ok|fine|well)|no\sproblems?|no\sissues?|fine|"
    r"does\s(?:not|n't)\s(?:occur|happen)|succeed\w{0,3})\b",
    re.IGNORECASE,
)


# The aws-ofi-nccl plugin named with its version ("`aws-ofi-nccl` 1.18.0 (bundled in EFA
# 1.47.0) hangs", "aws-ofi-nccl version 1.14.0"); one a sentence names as the fix ("fixed
# upstream in aws-ofi-nccl 1.20.0") or as a target ("upgrade to ...", "conda install
# aws-ofi-nccl=1.7.4") is not the one in use.
_OFI_NCCL = re.compile(
    r"(?<![\w-])`?(?:aws-ofi-nccl|aws\sofi\snccl|ofi-nccl|nccl-ofi)`?(?:\s(?:plugin|version))?"
    r"(?:\s(?:is|was))?(?:\s|\s?[:=]\s?)v?(\d\.\d{1,2}\.\d{1,2})(?:-aws)?(?![\w+]|\.\w)",
    re.IGNORECASE,
)
_FIX_WORD = re.compile(
    r"\b(?:fix\w{0,3}|resolv\w{0,3}|upgrad\w{0,3}|downgrad\w{0,3}|bump\w{0,3}|updat\w{0,3}|"
    r"install|newer|latest)\b"
    r"[^.]{0,60}$",
    re.IGNORECASE,
)


# A clause that says the program fails with an NCCL names the stack at fault, even where the
# same sentence names another release that works ("no longer works with nccl 2.12.10 (nccl 2.13
# works)", "hangs with NCCL 2.19.3 but not with 2.18.6").
_FAILS_WITH = re.compile(
    r"\b(?:no\slonger\s(?:works?|runs?)|(?:does|did|do)\s?(?:not|n't)\s(?:work|run)|fails?|"
    r"failed|failing|breaks|broke|broken|hangs?|hung|crash(?:es|ed)?|deadlocks?|errors?\sout)"
    r"\s(?:\w{1,12}\s){0,2}?with\s(?:the\s|my\s|our\s)?(?=nccl)",
    re.IGNORECASE,
)


_CONDITION = re.compile(r"\b(?:if|whether|unless|when)\b", re.IGNORECASE)


def _failing_nccl(sentence: str) -> re.Match[str] | None:
    """The NCCL a clause of the sentence says the program fails with, if any."""
    for clause in _FAILS_WITH.finditer(sentence):
        if _CONDITION.search(sentence[: clause.start()]):
            continue  # "if it fails with NCCL 2.19.3": a case, not this stack
        found = _NCCL.match(sentence, clause.end())
        if found is not None:
            return found
    return None


def stated_nccl(line: Line) -> list[Fact]:
    """The NCCL a sentence states as the one in use, or the one a version bump replaces."""
    if "NCCL error" in line.text:
        return []  # PyTorch's DistBackendError: the catalogue reads its NCCL as the one loaded
    for sentence in sentences(line.text):
        found = _NCCL_BUMP.search(sentence) or _failing_nccl(sentence)
        if found is None and not (_SUGGESTION.search(sentence) or _WORKS.search(sentence)):
            found = _NCCL.search(sentence)
            if found is not None and _RANGE_WORD.search(sentence[: found.start()]):
                found = None  # "since NCCL 2.12", "newer than NCCL 2.18": a range, not a stack
            if found is None and "+cuda" in sentence:
                found = _NCCL_PACKAGE.search(sentence)
                if found is not None and _FIX_WORD.search(sentence[: found.start()]):
                    found = None  # "Fixed with: 2.26.2-1+cuda12.8": the fix, not the stack
        if found is not None:
            return [
                ComponentFact(
                    line, ComponentName.NCCL, version=found.group(1), properties={"stated": "prose"}
                )
            ]
    return []


def stated_ofi_nccl(line: Line) -> list[Fact]:
    """The aws-ofi-nccl release a sentence states as the one in use."""
    if "ofi" not in line.text.lower():
        return []
    for sentence in sentences(line.text):
        if _SUGGESTION.search(sentence) or _WORKS.search(sentence):
            continue
        found = _OFI_NCCL.search(sentence)
        before = sentence[: found.start()] if found is not None else ""
        if found is not None and not (_RANGE_WORD.search(before) or _FIX_WORD.search(before)):
            said = {"stated": "prose"}
            return [
                ComponentFact(line, ComponentName.OFI_NCCL, version=found.group(1), properties=said)
            ]
    return []


def stated_versions(line: Line) -> list[Fact]:
    """The driver and the NCCL a sentence states as the ones in use (PyTorch, cuDNN and CUDA:
    ``stated_components``)."""
    facts: list[Fact] = stated_nccl(line) + stated_ofi_nccl(line)
    said = {"stated": "prose"}
    # A suggestion is judged in the driver's own sentence: "my driver is 535.183.01. Maybe we can
    # update the minimum driver version" states this host's driver in its first sentence.
    for sentence in sentences(line.text) if "river" in line.text else ():
        found = _DRIVER.search(sentence)
        if found is not None and not _SUGGESTION.search(sentence):
            facts.append(
                ComponentFact(
                    line,
                    ComponentName.DRIVER,
                    version=found.group(1) or found.group(2),
                    properties=said,
                )
            )
            break
    return facts


# Versions stated in sentences and environment lists, one row per component: its names and the
# shape of its version. The separators between them are the ones reporters and issue templates
# use: "pytorch: 1.4.0", "- PyTorch Version (e.g., 1.0): 2.1", "I'm using pytorch 0.2.0_3, with
# CUDA 8.0 and cudnn 6.0.20", "Tesla V100, cuda11.4", "CUDA版本: 12.1", "ドライバー 535.104".
# A row's version shape keeps it apart from the others' numbers (PyTorch 0.x-2.x, a driver's
# three digits). CUDA named in prose is recorded but not checked: a sentence seldom says whose it
# is (the toolkit's, the driver's, the wheel's), and a toolkit is often named beside the driver.
@dataclass(frozen=True)
class _Stated:
    names: str
    version: str
    fact: Callable[[Line, str], Fact]


def _prose_torch(line: Line, version: str) -> Fact:
    # "PyTorch 2.8.0 + cu129": the build tag written apart from the release
    torch = torch_fact(line, version.replace(" ", ""))
    torch.properties["stated"] = "prose"
    return torch


def _prose_component(component: ComponentName) -> Callable[[Line, str], Fact]:
    def fact(line: Line, version: str) -> Fact:
        return ComponentFact(line, component, version=version, properties={"stated": "prose"})

    return fact


def _prose_unchecked(what: str) -> Callable[[Line, str], Fact]:
    def fact(line: Line, version: str) -> Fact:
        return ObservationFact(line, "version-stated", f"{what} {version}")

    return fact


# A Latin name starts a word (not "libcudnn", "+cuda12.2", "torch.cuda"); a Chinese or Japanese
# one may follow a Latin word ("NVIDIA驱动版本是560.35.03").
# "/" after a number is a list's separator ("CUDA: 9.0/cuDNN: 7.0"), after a word a path's.
_WORD = r"(?<![\w.+-])(?<!\D/)"
_STATED = (
    # with or without its build tag ("PyTorch: 2.1.0+cu121", "pytorch 0.2.0_3", "2.8.0 + cu129")
    _Stated(
        rf"{_WORD}(?:py)?torch",
        r"[0-2]\.\d{1,2}(?:\.\d{1,2})?(?:\s?\+\s?(?:cu\d{2,3}|cpu|rocm\d{1,2}(?:\.\d{1,2}){0,2}))?"
        r"(?![a-zA-Z0-9+]|\.\d)",
        _prose_torch,
    ),
    _Stated(
        # or its major alone, as cuDNN's majors are named ("cuda12.4 cudnn9", "cuDNN 8")
        rf"{_WORD}cudnn",
        r"(?:[1-9]\.\d{1,2}(?:\.\d{1,3}){0,2}|[5-9])(?![A-Za-z0-9_+]|\.\d|\.?x\b)",
        _prose_component(ComponentName.CUDNN),
    ),
    _Stated(
        rf"{_WORD}(?:cuda(?:\s?toolkit)?|nvcc)",
        r"\d{1,2}\.\d(?:\.\d{1,3})?(?![A-Za-z0-9_+]|\.\d)",
        _prose_unchecked("CUDA"),
    ),
    _Stated(
        # NVIDIA/TensorRT's template ("TensorRT Version: 8.6.1.6"), "TRT version - 5.1.5.0"; not
        # TensorRT-LLM's or tensorrt_llm's (the name is followed by neither "-" nor "_")
        rf"{_WORD}(?:tensorrt|trt)",
        r"\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2}(?![A-Za-z0-9_+]|\.\d)",
        _prose_unchecked("TensorRT"),
    ),
    _Stated(
        # a release, its candidate or Amazon's build ("libfabric 1.12.0rc1", "1.18.2amzn1.0")
        rf"{_WORD}libfabric",
        r"[12]\.\d{1,2}(?:\.\d{1,2})?(?:rc\d{1,2}|amzn\d{1,2}\.\d{1,2})?(?![A-Za-z0-9_+]|\.\d)",
        _prose_component(ComponentName.LIBFABRIC),
    ),
    _Stated(
        # 驱动(程序), ドライバ(ー)
        r"\u9a71\u52a8(?:\u7a0b\u5e8f)?|\u30c9\u30e9\u30a4\u30d0\u30fc?",
        r"\d{3}\.\d{1,3}(?:\.\d{1,3})?(?![A-Za-z0-9_+]|\.\d)",
        _prose_component(ComponentName.DRIVER),
    ),
)
# Between a name and its version: a word for "version" (English, Chinese, Japanese; "CUDAの
# バージョンは12.1"), an issue
# template's placeholder, "is", a colon or equals sign (ASCII or full-width), a list's dash
# before the number ("CUDA version -9.0"), Markdown's bold, or nothing ("cuda11.4").
_BETWEEN = (
    r"(?:\s?\u306e?\s?(?:version|ver\.?|\u7248\u672c|\u30d0\u30fc\u30b8\u30e7\u30f3))?"
    r"(?:\s?\((?:e\.g\.|eg\.)[^)]{0,40}\))?(?:\s(?:is|was)|\s?[\u662f\u306f])?\**"
    r"(?:\s?[:=\uff1a]{1,2}\s?|\s-\s?(?=\d)|\s|)\**\s?v?"
)
_STATED_ONE = [
    re.compile(rf"(?:{row.names})(?![a-z_.-]){_BETWEEN}({row.version})", re.IGNORECASE)
    for row in _STATED
]
# The PyTorch issue template's pair: "CUDA/cuDNN version: 11.8/8.9".
_STATED_PAIR = re.compile(
    r"(?<![\w./-])(\w+)\s?/\s?(\w+)\s(?:versions?)?\s?[:\uff1a]\s?v?([\d.]+)\s?/\s?v?([\d.]+)",
    re.IGNORECASE,
)


# A version named as where to go ("how can I revert back to the PyTorch 0.3.0 version").
_TARGET = re.compile(r"\b(?:revert\w{0,3}|roll\w{0,3}\sback|go\sback|back\sto)\b", re.IGNORECASE)


# A line that starts a new item rather than continuing the sentence above: a list's marker, a
# quote, a table row, a heading.
_NEW_ITEM = re.compile(r"^\s{0,8}(?:[-*+>|#\u2022]|\d{1,2}[.)]\s)")
WRAPPED_MIN = 60  # a line this long that stops mid-sentence was wrapped; a list's lines are short


def continuation(line: Line, following: Line | None) -> str:
    """The next line's text where it continues ``line``'s last sentence (a browser or an editor
    wrapped it): the words a version's clause may run on into. Empty otherwise."""
    text = line.text.rstrip()
    if following is None or not following.text.strip() or _NEW_ITEM.match(following.text):
        return ""
    if len(text) < WRAPPED_MIN or text.endswith((".", "!", "?", ":", ";")):
        return ""
    return following.text.strip()


def stated_components(line: Line, tail: str = "") -> list[Fact]:
    """The PyTorch, cuDNN, CUDA, libfabric and driver versions a sentence or an environment list
    states, by the table above; not where the sentence, up to the end of the version's clause,
    suggests a version or says one works ("upgrade to torch 2.1", "torch 2.1 is required"; a later
    clause, "..., and running X suggests that our versions should be compatible", does not count),
    nor after a word that makes it a range ("since torch 1.8") or a target."""
    facts: list[Fact] = []
    if _COMMENT.match(line.text):
        return facts  # a script's or a Dockerfile's comment ("# First stage - DLC PyTorch 2.6")
    parts = sentences(line.text)
    for at, sentence in enumerate(parts):
        # The last sentence's clause may run on into the next line: the doubt is read there too.
        context = f"{sentence} {tail}" if tail and at == len(parts) - 1 else sentence
        pair = _STATED_PAIR.search(sentence)
        said = [(pair.group(1), pair.group(3)), (pair.group(2), pair.group(4))] if pair else []
        if said and _doubted(context, pair.end() if pair else 0):
            said = []
        for row, pattern in zip(_STATED, _STATED_ONE, strict=True):
            for name, version in said:
                found = pattern.fullmatch(f"{name} {version}")
                if found is not None:
                    facts.append(row.fact(line, found.group(1)))
            # A wrap may fall between a name and its version ("CUDA version" / "is 12.4"): the
            # last sentence is read on into the next line, for a match that spans the break.
            for found in pattern.finditer(context):
                if found.start() >= len(sentence):
                    break  # the next line's own: read there
                before = sentence[: found.start()]
                if not (
                    _RANGE_WORD.search(before)
                    or _TARGET.search(before)
                    or _doubted(context, found.end())
                ):
                    facts.append(row.fact(line, found.group(1)))
                    break
    return facts


_CLAUSE_END = re.compile(r"[,;(]")
# A comment line of a pasted script; an issue template's "#- PyTorch Version: 2.1" is its list.
_COMMENT = re.compile(r"^\s{0,8}#{1,3}\s")


def _doubted(sentence: str, end: int) -> bool:
    """Whether the sentence up to the end of the clause that ends at ``end`` suggests a version
    or says one works."""
    after = _CLAUSE_END.search(sentence, end)
    clause = sentence[: after.start() if after is not None else len(sentence)]
    return bool(_SUGGESTION.search(clause) or _WORKS.search(clause))


# An environment list's GPU line ("- GPU: 2 x NVIDIA RTX PRO 6000 Blackwell Workstation Edition,
# 96 GB each", NVIDIA/nccl#2418; "GPU: 8x H100 80GB"; "GPU: Tesla P100-PCIE-16GB * 2",
# pytorch#49846; the PyTorch and Lightning templates' "- GPU models and configuration: ...";
# Chinese "显卡" (graphics card) and "GPU型号" (model); "GPU version: v100, cuda:11.2",
# open-mmlab/mmcv#1413; the NVIDIA/TensorRT issue template's "**NVIDIA GPU**: RTX 4080"; a list
# written with a dash, "GPU type - Tesla T4"): an NVIDIA name, up to a comma, a bracket or a
# trailing count.
_GPU_LINE = re.compile(
    r"^\s{0,8}(?:#-\s?|[-*]\s)?\**(?:NVIDIA\s)?(?:GPUs?|\u663e\u5361)"
    r"(?:\s?(?:models?|types?|names?|versions?|\u578b\u53f7))?"
    r"(?:\sand\sconfiguration)?\**\s?(?:[:\uff1a]|(?<=\s)-(?=\s?[A-Z]))\s?\**\s?"
    r"(?:\d{1,3}\s?[xX\u00d7*]\s?)?"
    r"((?:NVIDIA\s)?(?:Tesla\s|GeForce\s|Quadro\s)?(?:RTX|GTX|GT\s?\d{3,4}|TITAN|[ABHLTVPK]\d{1,4}|"
    r"GB\d{3}|B\d{3})\b[\w\s-]{0,60}?)\s*(?:[,(;]|[*xX\u00d7]\s?\d|$)",
    re.IGNORECASE,
)


# A data-center GPU named with its count, as a cluster's or as an NVIDIA system's ("H800*8",
# "8x H100", "8 * A800", "H800 cluster", "HGX-H100"; NVIDIA/nccl#974, #933, #1043): the
# machines' GPU. A bare name may be a wish or a comparison, so it is not read.
_GPU_NAME = (
    r"(?:NVIDIA\s)?(?:A100|A800|H100|H800|H200|H20|B200|B300|GB200|V100|L40S)"
    r"(?:[- ](?:SXM\d?|PCIe|NVL))?"
)
_GPU_MODEL = re.compile(r"A100|A800|H100|H800|H200|H20|B200|B300|V100|L40S")
_GPU_COUNTED = re.compile(
    # "8x H100", "4 X A100", Chinese "8卡A100" / "8张A100" (cards)
    rf"\b\d{{1,2}}\s?[xX*\u00d7\u5361\u5f20]\s?({_GPU_NAME})(?![A-Za-z0-9_])|"
    rf"\b({_GPU_NAME})\s?[x*\u00d7]\s?\d{{1,2}}\b|"
    rf"\b({_GPU_NAME})\s(?:clusters?|nodes?|servers?|machines?)\b|"
    # NVIDIA's systems by name: "2x HGX-H100 systems", "a DGX A100" (NVIDIA/nccl#1043).
    rf"\b(?:DGX|HGX)[- ]?({_GPU_NAME})\b"
)

# A GPU named as one the reporter lacks ("but I don't have a H100 machine to test",
# NVIDIA/Megatron-LM#278) is not the machine's.
_NOT_HELD = re.compile(
    r"(?:\b(?:no|not|without|never|lack)|n't|n\u2019t)\s(?:(?:have|own|got|access\sto|an?|any)\s){0,3}$",
    re.IGNORECASE,
)


# A GeForce RTX card named with its count ("2xNVIDIA 3090", "4x RTX 4090", "2 * 3090 Ti"): the
# four-digit models from 2050 to 5090 are all GeForce RTX cards (NVIDIA's CUDA GPUs list), so a
# count before one names the machine's GPUs however the brand is written.
_RTX_COUNTED = re.compile(
    r"\b\d{1,2}\s?[xX*\u00d7]\s?(?:NVIDIA\s?)?(?:GeForce\s)?(?:RTX\s?)?"
    r"([2-5]0[5-9]0(?:\s?Ti)?)(?![\w.-])",
)


# A GPU named as what another is measured against ("little difference compared to 8xRTX 4090
# GPUs"): not the machine's.
_COMPARED = re.compile(
    r"\b(?:compared?\s(?:to|with)|than|vs\.?|versus|like|against)\s{1,3}$", re.IGNORECASE
)


def gpu_counted(line: Line) -> list[Fact]:
    """A data-center GPU a sentence names with its count or as its cluster's; a GeForce RTX
    card named with its count."""
    text = line.text
    rtx = _RTX_COUNTED.search(text)
    if rtx is not None and not any(
        held.search(text, 0, rtx.start()) for held in (_NOT_HELD, _COMPARED)
    ):
        return [GpuFact(line, f"GeForce RTX {rtx.group(1)}")]
    if _GPU_MODEL.search(text) is None:  # "00" let timestamps and step counts through
        return []
    found = _GPU_COUNTED.search(text)
    if found is None or _NOT_HELD.search(text, 0, found.start()) is not None:
        return []
    return [GpuFact(line, next(g for g in found.groups() if g))]


# How many GPUs the reporter's machine has, said in a sentence ("My server has 2 80G-A100", "with
# one A10G GPU (24GB VRAM)", "I only have 1 GPU"): up to two words of model between the count and
# a GPU word or model; not the nodes of a cluster ("on 4 nodes").
_COUNT_WORD = {"one": "1", "a single": "1", "single": "1", "two": "2", "four": "4", "eight": "8"}
_GPU_COUNT = re.compile(
    r"\b(?:has|have|had|with|on|using|only)\s(?:only\s|just\s)?"
    r"(one|a\ssingle|single|two|four|eight|\d{1,2})\s?(?:x\s?)?(?:[\w-]+\s){0,2}?"
    r"(?:GPUs?|graphics\scards?|(?:NVIDIA\s)?[\w-]{0,8}(?:A\d{1,3}G?|H\d{2,3}|V100|T4|L4|L40S?|P100|"
    r"P40|K80)|(?:RTX|GTX)\s?\d{3,4}(?:\s?Ti)?)\b(?!\s(?:nodes?|machines?|servers?|hosts?|clusters?)\b)",
    re.IGNORECASE,
)


def gpu_count_stated(line: Line) -> list[Fact]:
    """How many GPUs a sentence says the machine has."""
    found = _GPU_COUNT.search(line.text)
    if found is None:
        return []
    count = _COUNT_WORD.get(found.group(1).lower(), found.group(1))
    return [ObservationFact(line, "gpu-count-stated", count)]


def gpu_stated(line: Line) -> list[Fact]:
    """The GPU an environment list names on a `GPU:` line."""
    if "gpu" not in line.text[:16].lower() and "\u663e\u5361" not in line.text[:16]:
        return []
    found = _GPU_LINE.match(line.text)
    return [GpuFact(line, found.group(1).strip())] if found is not None else []


class Prose(Format):
    name = "prose"
    title = "text"

    def opens(self, line: Line) -> bool:
        return False

    def joins(self, line: Line) -> bool:
        return False

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        tried = tried_list_items(lines)
        return [
            fact
            for at, line in enumerate(lines)
            for fact in (
                *settings(line, lines[at - 1].text if at else "", tried=at in tried),
                *stated_versions(line),
                *stated_components(
                    line, continuation(line, lines[at + 1] if at + 1 < len(lines) else None)
                ),
                *stated_image(line),
                *container_stated(line),
                *fabric_stated(line),
                *hardware_path_stated(line),
                *sockets_stated(line),
                *cpu_stated(line),
                *cpu_build_stated(line),
                *cpu_instead_of_gpu_stated(line),
                *mig_stated(line),
                *gpu_request_stated(line),
                *memlock_raise_stated(line),
                *gpu_stated(line),
                *gpu_counted(line),
                *gpu_count_stated(line),
                *notebook_stated(line),
                *gpu_meant_stated(line),
            )
        ]


def settings(line: Line, before: str = "", *, tried: bool = False) -> list[Fact]:
    """The ``NAME=value`` settings a sentence states. ``before`` is the paragraph's previous
    line: a hint wrapped there ("... you can" / "set NCCL_X=1") is still a hint. ``tried``: the
    line is an item of a list of attempts that failed (``tried_list_items``)."""
    facts: list[Fact] = []
    if _COMMENTED.match(line.text):
        return facts
    for found, name, value in _assignments(line.text):
        said = line.text[: found.start()]
        # "then I successfully tested nccl-test without `NCCL_P2P_DISABLE=1`" (NVIDIA/nccl#841):
        # the workaround was no longer needed after a change the text names elsewhere.
        if name == "NCCL_P2P_DISABLE" and _WITHOUT.search(said) and _FIXED.search(said):
            facts.append(ObservationFact(line, "p2p-restored-stated", found.group(0)))
        lead = f"{before.strip()} {said.lstrip()}"
        if not is_recorded(name) or _HINT.search(lead + name) or _WITHOUT.search(lead):
            continue
        facts.append(EnvFact(line, name, value))
        if (
            tried
            or _TRIED_BEFORE.search(lead)
            or (
                _TRIED_AFTER.search(line.text[found.end() :])
                and not _WORKED.search(line.text[found.end() :])
            )
            or _tried_and_failed(line.text, found.start(), found.end())
        ):
            facts.append(ObservationFact(line, "setting-tried", name))
    return facts


# A list of attempts: "I've already tried:", "Things I tried so far:", "Tried without success:"
# over items ("- NCCL_P2P_DISABLE=1"); the verdict in the heading, or on the line after the list.
_LIST_ITEM = re.compile(r"^\s{0,8}(?:[-*+\u2022]|\d{1,2}[.)])\s")
_SO_FAR = re.compile(r"\b(?:so\sfar|already)\b", re.IGNORECASE)


def tried_list_items(lines: Sequence[Line]) -> set[int]:
    """The indexes of list items under a heading that says they were tried and did not help."""
    found: set[int] = set()
    for at, line in enumerate(lines):
        heading = line.text.rstrip()
        if not heading.endswith(":") or not _ATTEMPT.search(heading):
            continue
        items = []
        for item in range(at + 1, len(lines)):
            if not _LIST_ITEM.match(lines[item].text):
                break
            items.append(item)
        after = lines[items[-1] + 1].text if items and items[-1] + 1 < len(lines) else ""
        failed = _FAILED.search(heading) or _SO_FAR.search(heading) or _FAILED.search(after)
        if items and failed and not _WORKED.search(heading) and not _WORKED.search(after):
            found.update(i for i in items if not _WORKED.search(lines[i].text))
    return found


def _tried_and_failed(text: str, start: int, end: int) -> bool:
    """Whether the sentence holding ``text[start:end]`` says it was tried and did not help."""
    sentence = sentence_at(text, start, end)
    return bool(
        _ATTEMPT.search(sentence) and _FAILED.search(sentence) and not _WORKED.search(sentence)
    )
