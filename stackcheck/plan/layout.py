"""A job's parallel layout on its instances: what the layout rules (family ``layout``) judge."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class JobLayout(BaseModel):
    """Ranks are laid out TP innermost, then CP, then DP (with EP carved out of DP x CP), then PP,
    as Megatron-LM orders them: a TP group fills consecutive GPUs of one node first."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    instance: str
    gpus_per_node: int = Field(gt=0)
    nodes: int = Field(gt=0)
    tp: int = Field(default=1, gt=0)
    pp: int = Field(default=1, gt=0)
    cp: int = Field(default=1, gt=0)
    dp: int = Field(default=1, gt=0)
    ep: int = Field(default=1, gt=0)
    # Model facts as the user gave them (None: not given); rules never judge a derived estimate.
    layers: int | None = None
    heads: int | None = None
    experts: int | None = None

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def ranks(self) -> int:
        """The GPUs the layout uses: DP x TP x PP x CP."""
        return self.dp * self.tp * self.pp * self.cp

    def describe(self) -> str:
        parts = [f"TP {self.tp}", f"PP {self.pp}"]
        if self.cp > 1:
            parts.append(f"CP {self.cp}")
        parts.append(f"DP {self.dp}")
        text = " x ".join(parts) + f" = {self.ranks} GPUs"
        if self.experts:
            text += f", EP {self.ep}"
        return f"{text} on {self.nodes}x {self.instance}"
