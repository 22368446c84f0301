# Records each request body to DIR/req-N.json and forwards it to UPSTREAM, streaming the answer back.
import re, http.server, sys, urllib.request, itertools, os
UP, DIR, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = itertools.count()
agent0 = None
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self): self.fwd(None)
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.fwd(body)
    def fwd(self, body):
        i = next(n)
        with open(os.path.join(DIR, f"req-{i:03d}.json"), "wb") as f:
            f.write((self.command + " " + self.path + "\n").encode() + (body or b""))
        req = urllib.request.Request(UP + self.path, data=body, method=self.command,
            headers={k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization", "accept")})
        try:
            r = urllib.request.urlopen(req)
        except urllib.error.HTTPError as e:
            r = e
        self.send_response(r.status)
        for k, v in r.headers.items():
            if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
        c = r.read()
        # AGENT0 in the script stands for the first spawned agent's id.
        global agent0
        m = re.search(rb'agent_id[\\"]+:[\\"]+([0-9a-f-]{36})', body or b"")
        if m and not agent0: agent0 = m.group(1)
        if agent0: c = c.replace(b"AGENT0", agent0)
        # The fake model knows no tool namespaces: put the sub-agent calls in Codex's multi_agent_v1.
        for t in (b"spawn_agent", b"wait_agent", b"close_agent", b"send_input", b"resume_agent"):
            c = c.replace(b'"name":"' + t + b'"', b'"name":"' + t + b'","namespace":"multi_agent_v1"')
        if c:
            self.wfile.write(b"%x\r\n" % len(c) + c + b"\r\n")
        self.wfile.write(b"0\r\n\r\n"); self.wfile.flush()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
