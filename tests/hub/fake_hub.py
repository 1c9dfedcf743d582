"""A Hugging Face Hub on 127.0.0.1 for the hub client's tests.

It answers as huggingface.co does, in what huggingface_hub (file_download.py,
hf_api.py, utils/_http.py) and @huggingface/hub read of it:

  GET  /api/models/<id>/revision/<rev>      {"id", "sha": <commit>, "siblings": [{"rfilename"}]}
  GET  /api/models/<id>/tree/<rev>?recursive=true   [{"type", "path", "oid", "size", "lfs"}]
  POST /api/models/<id>/paths-info/<rev>    the same for {"paths": [...]}, with lastCommit
  HEAD|GET /<id>/resolve/<rev>/<file>       a git file: 200, ETag (its git blob id),
                                            X-Repo-Commit, Content-Length, Range served;
                                            an LFS file: 302 to the second server (the CDN),
                                            X-Linked-Etag (its sha256), X-Linked-Size
  HEAD|GET <cdn>/blobs/<sha256>             an LFS file's bytes, Range served

Errors as the Hub gives them: 401 with X-Error-Code RepoNotFound for a repository
that is not there (or private, without its token), 401 "Invalid credentials in
Authorization header" for a wrong token, 404 RevisionNotFound, 404 EntryNotFound.

Every request is logged (server, method, path, headers); faults are set per
LFS blob by the tests: drops (send some bytes, then close the connection),
corruption, sizes that lie, ETags that would lead out of the cache.
"""

import hashlib
import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

# What the Hub keeps in LFS (its default .gitattributes).
LFS_SUFFIXES = (".safetensors", ".bin", ".onnx", ".npy", ".model")


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def lfs_pointer(sha, size):
    return b"version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (
        sha.encode(), size)


def folder_files(folder):
    """{relative path: bytes} of every file under folder."""
    out = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            out[os.path.relpath(path, folder).replace(os.sep, "/")] = open(path, "rb").read()
    return out


class Repo:
    """A repository: revisions (branch or tag -> commit) and each commit's files."""

    def __init__(self, repo_id, commits, refs, token=None):
        self.repo_id = repo_id
        self.commits = commits  # {commit: {path: bytes}}
        self.refs = refs        # {"main": commit, "v1": commit}
        self.token = token      # a private repository's token

    def commit_of(self, rev):
        if rev in self.commits:
            return rev
        return self.refs.get(rev)


def make_commit(repo_id, name):
    return hashlib.sha1(("%s@%s" % (repo_id, name)).encode()).hexdigest()


class Faults:
    """What the tests make go wrong, by LFS blob (sha256)."""

    def __init__(self):
        self.drops = {}         # sha -> [bytes to send before closing, one per GET]
        self.corrupt = set()    # sha: one byte flipped
        self.announce = {}      # sha -> the size X-Linked-Size says
        self.etag = {}          # path -> the X-Linked-Etag sent
        self.throttle = 0.0     # seconds between 4 KiB pieces of a blob
        self.ignore_range = set()


class FakeHub:
    def __init__(self, repos):
        self.repos = {r.repo_id: r for r in repos}
        self.faults = Faults()
        self.log = []
        self.lock = threading.Lock()
        self.blobs = {}  # sha -> bytes, every LFS file of every commit
        for repo in repos:
            for files in repo.commits.values():
                for path, data in files.items():
                    if path.endswith(LFS_SUFFIXES):
                        self.blobs[hashlib.sha256(data).hexdigest()] = data
        self.hub = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("hub"))
        self.cdn = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("cdn"))
        for server in (self.hub, self.cdn):
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.hub.server_address[1]

    @property
    def cdn_url(self):
        return "http://127.0.0.1:%d" % self.cdn.server_address[1]

    def close(self):
        for server in (self.hub, self.cdn):
            server.shutdown()
            server.server_close()

    def requests(self, server=None, method=None):
        with self.lock:
            return [r for r in self.log if (server is None or r["server"] == server)
                    and (method is None or r["method"] == method)]

    def clear_log(self):
        with self.lock:
            self.log.clear()

    def _handler(self, role):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _log(self):
                with hub.lock:
                    hub.log.append({"server": role, "method": self.command, "path": self.path,
                                    "headers": {k.lower(): v for k, v in self.headers.items()}})

            def do_HEAD(self):
                self._log()
                (self._hub if role == "hub" else self._cdn)(head=True)

            def do_GET(self):
                self._log()
                (self._hub if role == "hub" else self._cdn)(head=False)

            def do_POST(self):
                self._log()
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                self._hub(head=False, post=body)

            # ---- answers

            def _send(self, status, headers, body=b"", head=False):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def _json(self, status, value, headers=None, head=False):
                body = json.dumps(value).encode()
                h = {"Content-Type": "application/json"}
                h.update(headers or {})
                self._send(status, h, body, head)

            def _error(self, status, code, message, head=False):
                headers = {"X-Error-Message": message}
                if code:
                    headers["X-Error-Code"] = code
                self._json(status, {"error": message}, headers, head)

            def _authorised(self, repo, head):
                if repo.token is None:
                    return True
                auth = self.headers.get("Authorization")
                if auth == "Bearer " + repo.token:
                    return True
                if auth:
                    self._error(401, None, "Invalid credentials in Authorization header", head)
                else:
                    self._error(401, "RepoNotFound", "Repository not found", head)
                return False

            def _find_repo(self, rest):
                """(repo, what follows its id) for a path that starts with a repo id."""
                for repo_id, repo in hub.repos.items():
                    if rest.startswith(repo_id + "/"):
                        return repo, rest[len(repo_id) + 1:]
                return None, None

            def _hub(self, head, post=None):
                path = urlsplit(self.path).path
                api = path.startswith("/api/models/")
                repo, rest = self._find_repo(path[len("/api/models/"):] if api else path[1:])
                if repo is None:
                    return self._error(401, "RepoNotFound", "Repository not found", head)
                if not self._authorised(repo, head):
                    return
                kind, _, rest = rest.partition("/")
                rev_raw, _, file_raw = rest.partition("/")
                rev = unquote(rev_raw)
                commit = repo.commit_of(rev)
                if commit is None:
                    return self._error(404, "RevisionNotFound", "Invalid rev id: " + rev, head)
                files = repo.commits[commit]
                if api and kind == "revision":
                    return self._json(200, {"_id": repo.repo_id, "id": repo.repo_id,
                                            "private": repo.token is not None, "sha": commit,
                                            "siblings": [{"rfilename": f} for f in sorted(files)]},
                                      head=head)
                if api and kind == "tree":
                    return self._json(200, self._tree(files, commit, None), head=head)
                if api and kind == "paths-info":
                    return self._json(200, self._tree(files, commit, post.get("paths", [])),
                                      head=head)
                if not api and kind == "resolve":
                    return self._resolve(repo, commit, unquote(file_raw), files, head)
                self._error(404, None, "Not found", head)

            def _tree(self, files, commit, only):
                entries, dirs = [], set()
                for path in sorted(files):
                    if only is not None and path not in only:
                        continue
                    data = files[path]
                    entry = {"type": "file", "path": path, "oid": git_blob_id(data),
                             "size": len(data),
                             "lastCommit": {"id": commit, "title": "test",
                                            "date": "2026-01-01T00:00:00.000Z"}}
                    if path.endswith(LFS_SUFFIXES):
                        sha = hashlib.sha256(data).hexdigest()
                        pointer = lfs_pointer(sha, len(data))
                        entry["oid"] = git_blob_id(pointer)
                        entry["lfs"] = {"oid": sha, "size": len(data), "pointerSize": len(pointer)}
                    entries.append(entry)
                    parts = path.split("/")[:-1]
                    for i in range(len(parts)):
                        dirs.add("/".join(parts[:i + 1]))
                if only is None:
                    entries += [{"type": "directory", "path": d, "oid": "0" * 40, "size": 0}
                                for d in sorted(dirs)]
                return entries

            def _resolve(self, repo, commit, path, files, head):
                if path not in files:
                    headers = {"X-Repo-Commit": commit, "X-Error-Code": "EntryNotFound",
                               "X-Error-Message": "Entry not found"}
                    return self._json(404, {"error": "Entry not found"}, headers, head)
                data = files[path]
                common = {"X-Repo-Commit": commit, "Accept-Ranges": "bytes"}
                if not path.endswith(LFS_SUFFIXES):
                    common["ETag"] = '"%s"' % git_blob_id(data)
                    return self._serve(data, common, head)
                sha = hashlib.sha256(data).hexdigest()
                body = b"Found. Redirecting to the CDN"
                common.update({
                    "ETag": '"%s"' % git_blob_id(lfs_pointer(sha, len(data))),
                    "X-Linked-Etag": hub.faults.etag.get(path, '"%s"' % sha),
                    "X-Linked-Size": str(hub.faults.announce.get(sha, len(data))),
                    "Location": "%s/blobs/%s?X-Amz-Signature=test" % (hub.cdn_url, sha),
                })
                self._send(302, common, body, head)

            def _cdn(self, head):
                sha = urlsplit(self.path).path.rsplit("/", 1)[-1]
                data = hub.blobs.get(sha)
                if data is None:
                    return self._send(404, {}, b"NoSuchKey", head)
                if sha in hub.faults.corrupt:
                    data = bytes([data[0] ^ 0xFF]) + data[1:]
                self._serve(data, {"ETag": '"%s"' % sha, "Accept-Ranges": "bytes"}, head, sha)

            def _serve(self, data, headers, head, sha=None):
                """data, or the part a "Range: bytes=a-" or "bytes=a-b" asks for."""
                start, end = 0, len(data)
                status = 200
                asked = self.headers.get("Range")
                if asked and asked.startswith("bytes=") and sha not in hub.faults.ignore_range:
                    a, _, b = asked[6:].partition("-")
                    start = int(a)
                    end = min(int(b) + 1, len(data)) if b else len(data)
                    if start >= len(data):
                        return self._send(416, {"Content-Range": "bytes */%d" % len(data)},
                                          b"", head)
                    status = 206
                    headers = dict(headers, **{"Content-Range": "bytes %d-%d/%d"
                                               % (start, end - 1, len(data))})
                part = data[start:end]
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(part)))
                self.end_headers()
                if head:
                    return
                drops = hub.faults.drops.get(sha) if sha else None
                with hub.lock:
                    cut = drops.pop(0) if drops else None
                if cut is not None:
                    self.wfile.write(part[:cut])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if hub.faults.throttle and sha:
                    for i in range(0, len(part), 4096):
                        self.wfile.write(part[i:i + 4096])
                        self.wfile.flush()
                        time.sleep(hub.faults.throttle)
                else:
                    self.wfile.write(part)

        return Handler
