"""A TCP proxy on 127.0.0.1 that a test can cut and restore, to lose a database mid-run.

The proxy runs its own event loop in a thread, so that synchronous tests and subprocesses can
go through it. While it is *cut*, it behaves like a network partition, the worst case for a
client: bytes stop flowing on every open connection (neither end is told), and new
connections are accepted but nothing is forwarded. Only timeouts on the client's side end
those waits. :meth:`TcpProxy.restore` closes the stalled connections and forwards again.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``target_host``:``target_port`` until cut."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> None:
        """Listen on a free port of 127.0.0.1 and forward."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=10)

    def cut(self) -> None:
        """Stop forwarding: open connections stall, new ones are accepted and left waiting."""
        self._call(self._flowing.clear)

    def restore(self) -> None:
        """Close the stalled connections and forward new ones again."""

        async def _restore() -> None:
            for writer in list(self._writers):
                writer.close()
            self._writers.clear()
            self._flowing.set()

        asyncio.run_coroutine_threadsafe(_restore(), self._loop).result(timeout=10)

    def stop(self) -> None:
        """Close every connection and the listener, and end the proxy's thread."""
        self.restore()

        async def _stop() -> None:
            if self._server is not None:
                self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(_stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def _call(self, function: object) -> None:
        done = threading.Event()

        def run() -> None:
            function()  # type: ignore[operator]
            done.set()

        self._loop.call_soon_threadsafe(run)
        done.wait(timeout=10)

    async def _listen(self) -> None:
        self._flowing.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        await self._flowing.wait()
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while chunk := await reader.read(65536):
                if not self._flowing.is_set():
                    await self._flowing.wait()  # stalled: hold the bytes, tell no one
                    if writer.is_closing():
                        return
                writer.write(chunk)
                await writer.drain()
        writer.close()


@contextmanager
def tcp_proxy(target_host: str, target_port: int) -> Iterator[TcpProxy]:
    """A started proxy, stopped on the way out."""
    proxy = TcpProxy(target_host, target_port)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
