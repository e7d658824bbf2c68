"""What a request costs, given how much of its prompt the provider read from its prefix cache.

The simulator never looks prices up itself (the engine may not import litellm): the host passes plain
$-per-token numbers in. Where a price map lacks a cache price, the provider's usual ratios stand in:
a cache read costs a tenth of the input price, a cache write a quarter more than it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

CACHE_READ_FACTOR = 0.1
CACHE_WRITE_FACTOR = 1.25


class PriceTable(BaseModel):
    """$ per token. `cache_write` is what a prompt token costs when it is not read from the cache:
    Anthropic writes every uncached token of a request whose last message carries a breakpoint."""

    model_config = ConfigDict(frozen=True)

    name: str
    input: float
    output: float
    cache_read: float
    cache_write: float

    @classmethod
    def from_prices(cls, name: str, input_price: float, output_price: float, cache_read: float | None = None,
                    cache_write: float | None = None) -> PriceTable:
        read = input_price * CACHE_READ_FACTOR if cache_read is None else cache_read
        write = input_price * CACHE_WRITE_FACTOR if cache_write is None else cache_write
        return cls(name=name, input=input_price, output=output_price, cache_read=read, cache_write=write)

    def cost(self, cached: float, written: float, output: float) -> float:
        return cached * self.cache_read + written * self.cache_write + output * self.output
