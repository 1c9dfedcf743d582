//! Models by name: `hub::resolve`, `hub::model_folder` and the pipelines' `from_pretrained`
//! against a Hub on 127.0.0.1 (tests/hub/serve_fake_hub.py over fake_hub.py, run with
//! /usr/bin/python3; those tests are skipped without it, or when the library was built without
//! the Hub client), and offline on a cache laid out by hand as huggingface_hub lays it out.
mod common;

use std::cell::{Cell, RefCell};
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::symlink;
use std::panic;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::data_dir;
use tfenc::hub::{self, Progress};
use tfenc::{CrossEncoder, EncodeOptions, HubOptions, PipelineOptions, SentenceEncoder, Status};

const PYTHON: &str = "/usr/bin/python3";
const DENSE: &str = "tfenc-test/st-dense";
const CROSS: &str = "tfenc-test/cross-encoder";
/// An address where nothing listens.
const NOWHERE: &str = "http://127.0.0.1:9";

/// serve_fake_hub.py's Hub, stopped (its standard input closed) when dropped.
struct FakeHub {
    child: Child,
    url: String,
}

impl FakeHub {
    /// The Hub of these (repository, folder) pairs, or None without /usr/bin/python3.
    fn start(repos: &[(&str, &str)]) -> Option<FakeHub> {
        if !Path::new(PYTHON).exists() {
            eprintln!("skipped: no {}", PYTHON);
            return None;
        }
        let script = data_dir().join("..").join("hub").join("serve_fake_hub.py");
        let args = repos.iter().map(|(id, folder)| {
            format!("{}={}", id, data_dir().join("pipelines").join(folder).display())
        });
        let mut child = Command::new(PYTHON)
            .arg(script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve_fake_hub.py starts");
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut url).unwrap();
        assert!(url.starts_with("http://127.0.0.1:"), "serve_fake_hub.py printed {:?}", url);
        Some(FakeHub { child, url: url.trim().to_string() })
    }
}

impl Drop for FakeHub {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// An empty folder of this test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tfenc-hub-{}-{}", std::process::id(), name));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn online<'a>(hub: &FakeHub, cache: &Path) -> HubOptions<'a> {
    HubOptions {
        endpoint: Some(hub.url.clone()),
        cache_dir: Some(cache.to_path_buf()),
        ..HubOptions::default()
    }
}

/// False (and says so) when the library cannot download: built without the Hub client.
fn can_download(hub: &FakeHub, cache: &Path) -> bool {
    match hub::resolve(DENSE, &online(hub, cache)) {
        Err(e) if e.status == Status::Unsupported => {
            eprintln!("skipped: {}", e);
            false
        }
        _ => true,
    }
}

fn vectors(enc: &SentenceEncoder) -> Vec<f32> {
    enc.encode(&["hello world", "a second text"], &EncodeOptions::default()).unwrap().values
}

#[test]
fn a_hub_id_resolves_online_then_offline_and_loads_as_its_folder() {
    let hub = match FakeHub::start(&[(DENSE, "st_dense"), (CROSS, "cross_encoder")]) {
        Some(hub) => hub,
        None => return,
    };
    let tmp = TempDir::new("online");
    let cache = tmp.0.join("cache");
    if !can_download(&hub, &tmp.0.join("probe")) {
        return;
    }
    let (calls, last) = (Cell::new(0usize), RefCell::new(None::<Progress>));
    let opts = HubOptions {
        progress: Some(Box::new(|p: &Progress| {
            calls.set(calls.get() + 1);
            *last.borrow_mut() = Some(p.clone());
            true
        })),
        ..online(&hub, &cache)
    };
    let folder = hub::resolve(DENSE, &opts).unwrap();
    assert!(folder.starts_with(cache.join("models--tfenc-test--st-dense").join("snapshots")));
    assert!(folder.join("2_Dense").join("model.safetensors").is_file());
    let last = last.borrow().clone().expect("progress reported");
    assert!(calls.get() >= 1 && last.repo_id == DENSE && last.bytes == last.total_bytes);

    let local = SentenceEncoder::from_dir(data_dir().join("pipelines").join("st_dense")).unwrap();
    let by_id = SentenceEncoder::from_pretrained(DENSE, &PipelineOptions::default(), &opts).unwrap();
    assert_eq!(vectors(&by_id), vectors(&local));
    let pair = [("how many legs does a dog have?", "a dog has four legs.")];
    let ce = CrossEncoder::from_pretrained(CROSS, &PipelineOptions::default(), &opts).unwrap();
    let ce_local = CrossEncoder::from_dir(data_dir().join("pipelines").join("cross_encoder")).unwrap();
    assert_eq!(ce.predict(&pair, 0).unwrap(), ce_local.predict(&pair, 0).unwrap());

    let offline = HubOptions {
        endpoint: Some(NOWHERE.to_string()),
        cache_dir: Some(cache.clone()),
        local_files_only: true,
        ..HubOptions::default()
    };
    assert_eq!(hub::resolve(DENSE, &offline).unwrap(), folder);
}

#[test]
fn the_hubs_errors_and_a_name_that_is_neither() {
    let e = hub::model_folder("./no/such", &HubOptions::default()).unwrap_err();
    assert_eq!(e.status, Status::File);
    assert_eq!(
        e.message,
        "./no/such: no such folder, and not a Hub id (expected \"name\" or \"org/name\" of \
         letters, digits, '-', '_' and '.' (as huggingface_hub's validate_repo_id), got more \
         than one '/')"
    );
    let hub = match FakeHub::start(&[(DENSE, "st_dense")]) {
        Some(hub) => hub,
        None => return,
    };
    let tmp = TempDir::new("errors");
    if !can_download(&hub, &tmp.0.join("probe")) {
        return;
    }
    let cache = tmp.0.join("cache");
    let e = hub::model_folder("tfenc-test/nothing", &online(&hub, &cache)).unwrap_err();
    assert_eq!(e.status, Status::NotFound);
    assert!(e.message.starts_with("tfenc-test/nothing: no such folder; as a Hub id: "));
    assert!(e.message.contains("RepoNotFound"), "{}", e.message);

    let stop = HubOptions { progress: Some(Box::new(|_: &Progress| false)),
                            ..online(&hub, &cache) };
    let e = hub::resolve(DENSE, &stop).unwrap_err();
    assert_eq!(e.status, Status::File);
    assert!(e.message.contains("cancelled by the progress callback"), "{}", e.message);

    let panics = HubOptions { progress: Some(Box::new(|_: &Progress| panic!("from the closure"))),
                              ..online(&hub, &cache) };
    let caught = panic::catch_unwind(panic::AssertUnwindSafe(|| hub::resolve(DENSE, &panics)));
    let payload = caught.expect_err("the closure's panic raised again");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"from the closure"));
}

/// cache/models--org--name as huggingface_hub lays out a snapshot of folder at commit.
fn lay_out(cache: &Path, repo: &str, commit: &str, folder: &Path) -> PathBuf {
    let storage = cache.join(format!("models--{}", repo.replace('/', "--")));
    let snapshot = storage.join("snapshots").join(commit);
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in fs::read_dir(folder.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let name = rel.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(name);
                continue;
            }
            let blob_name = name.to_string_lossy().replace('/', "_");
            let blob = storage.join("blobs").join(&blob_name);
            fs::create_dir_all(blob.parent().unwrap()).unwrap();
            fs::copy(entry.path(), &blob).unwrap();
            let link = snapshot.join(&name);
            fs::create_dir_all(link.parent().unwrap()).unwrap();
            let up = "../".repeat(name.components().count() + 1);
            symlink(format!("{}blobs/{}", up, blob_name), &link).unwrap();
        }
    }
    fs::create_dir_all(storage.join("refs")).unwrap();
    fs::write(storage.join("refs").join("main"), commit).unwrap();
    snapshot
}

#[test]
fn a_cache_laid_out_by_hand_is_read_offline() {
    let tmp = TempDir::new("by-hand");
    let cache = tmp.0.join("cache");
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let local = data_dir().join("pipelines").join("st_dense");
    let snapshot = lay_out(&cache, DENSE, commit, &local);
    let offline = HubOptions {
        endpoint: Some(NOWHERE.to_string()),
        cache_dir: Some(cache.clone()),
        local_files_only: true,
        ..HubOptions::default()
    };
    assert_eq!(hub::resolve(DENSE, &offline).unwrap(), snapshot);
    let by_id =
        SentenceEncoder::from_pretrained(DENSE, &PipelineOptions::default(), &offline).unwrap();
    assert_eq!(vectors(&by_id), vectors(&SentenceEncoder::from_dir(&local).unwrap()));
    let e = hub::resolve(CROSS, &offline).unwrap_err();
    assert_eq!(e.status, Status::NotFound);
    assert!(e.message.starts_with(
        "tfenc-test/cross-encoder at revision main: not in the cache, and \
         options.local_files_only keeps the Hub out: "
    ));
}
