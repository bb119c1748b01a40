"""A TCP forwarder for tests: put it between the driver and the test server, then stop it to make the server
"go down" for that driver alone (connections cut, new ones refused) and start it again to bring it back."""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType
from typing import Self


class TcpProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.host, self.target_port = host, target_port
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> TcpProxy:
        """Listens (on the same port as before when restarted) and forwards each connection."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Refuses new connections and cuts the open ones."""
        with self._lock:
            sockets, self._open = self._open, []
            listener, self._listener = self._listener, None
        for sock in [*sockets, *([listener] if listener else [])]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # stopped
            try:
                upstream = socket.create_connection((self.host, self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
