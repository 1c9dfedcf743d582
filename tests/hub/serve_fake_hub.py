"""serve_fake_hub.py REPO_ID=FOLDER ...: fake_hub.py's Hub on 127.0.0.1 for a test in another
language (rust/tests/hub.rs), each REPO_ID's main revision holding FOLDER's files. Prints the
Hub's URL on a line of its own, then serves until its standard input is closed (the test
ending, or dying)."""
import sys

from fake_hub import FakeHub, Repo, folder_files, make_commit


def main(args):
    repos = []
    for arg in args:
        repo_id, _, folder = arg.partition("=")
        commit = make_commit(repo_id, "main")
        repos.append(Repo(repo_id, {commit: folder_files(folder)}, {"main": commit}))
    hub = FakeHub(repos)
    print(hub.url, flush=True)
    sys.stdin.read()
    hub.close()


if __name__ == "__main__":
    main(sys.argv[1:])
