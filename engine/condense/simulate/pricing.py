"""What a request costs, given how much of its prompt the provider read from its prefix cache.

The simulator never looks prices up itself (the engine may not import litellm): the host passes plain
$-per-token numbers in. Where a price map lacks a cache price, the provider's usual ratios stand in:
a cache read costs a tenth of the input price, a cache write a quarter more than it. Anthropic's
1-hour cache entries cost twice the input price to write (reads cost the same).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

CACHE_READ_FACTOR = 0.1
CACHE_WRITE_FACTOR = 1.25
CACHE_WRITE_1H_FACTOR = 2.0


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

    def with_one_hour_writes(self) -> PriceTable:
        """The table for 1-hour cache entries: writes at twice the input price."""
        return self.model_copy(update={"cache_write": self.input * CACHE_WRITE_1H_FACTOR,
                                       "name": f"{self.name}, 1h cache"})

    def cost(self, cached: float, written: float, output: float, plain: float = 0.0) -> float:
        """`plain`: prompt tokens after the last breakpoint, neither read nor written."""
        return cached * self.cache_read + written * self.cache_write + plain * self.input + output * self.output
