/* test_files.c — the library's files on disk. Saving: a symbolic link
 * planted at a temporary name is never followed; a path that is not a
 * regular file (FIFO, directory, device, symbolic link) is refused and left
 * as it was; concurrent saves to one path each succeed whole (the file is
 * always exactly one of the models); a save that fails (unwritable
 * directory, file-size limit) leaves no temporary file and the old file
 * intact; a new file's mode is 0666 less the umask. Reading: a FIFO, a
 * directory or a device as model.safetensors, config.json or vocab.txt is
 * TF_ERR_IO naming it, never a hang (each read runs in a child under
 * alarm(), so a hang fails the test). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

/* A read that has not returned after this long is taken to hang. */
enum { HANG_GUARD_SECONDS = 20 };
/* Concurrent saves: threads, and saves by each. */
enum { SAVERS = 2, SAVES_PER_THREAD = 40 };
/* The user the unprivileged children become. */
enum { NOBODY = 65534 };

static const char *data_dir;

/* Entries of dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (const struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

typedef struct bytes {
    unsigned char *data;
    size_t size;
} bytes;

static bytes read_bytes(const char *path)
{
    bytes b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    b.size = (size_t)ftell(f);
    rewind(f);
    b.data = malloc(b.size ? b.size : 1);
    ck_assert_ptr_nonnull(b.data);
    ck_assert_uint_eq(fread(b.data, 1, b.size, f), b.size);
    fclose(f);
    return b;
}

static int same_bytes(bytes a, bytes b)
{
    return a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
}

/* 1 if every tensor of x and y has the same name, shape and bits. */
static int same_weights(const tf_encoder *x, const tf_encoder *y)
{
    const size_t n = tf_encoder_tensor_count(x);
    int same = n == tf_encoder_tensor_count(y);
    for (size_t i = 0; same && i < n; i++) {
        const char *name = tf_encoder_tensor_name(x, i);
        int32_t rank, rank_y;
        int64_t dims[TF_MAX_RANK], dims_y[TF_MAX_RANK];
        same = tf_encoder_tensor_shape(x, name, &rank, dims) == TF_OK &&
            tf_encoder_tensor_shape(y, name, &rank_y, dims_y) == TF_OK && rank == rank_y &&
            memcmp(dims, dims_y, (size_t)rank * sizeof *dims) == 0;
        size_t count = 1;
        for (int32_t d = 0; same && d < rank; d++)
            count *= (size_t)dims[d];
        float *a = same ? malloc(count * sizeof *a) : NULL;
        float *b = a ? malloc(count * sizeof *b) : NULL;
        same = b && tf_encoder_get_tensor(x, name, a, rank, dims) == TF_OK &&
            tf_encoder_get_tensor(y, name, b, rank, dims) == TF_OK &&
            memcmp(a, b, count * sizeof *a) == 0;
        free(a);
        free(b);
    }
    return same;
}

/* Models of one shape told apart by their seed; big enough (32 KiB of
 * weights) that a save writes well past the header. */
static tf_encoder *make_model(uint64_t seed)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 32, cfg.n_heads = 2, cfg.d_ff = 64, cfg.seed = seed;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    return enc;
}

/* The bytes tf_encoder_save writes for enc, saved alone to dir/name. */
static bytes saved_bytes(const tf_encoder *enc, const char *name)
{
    const path_buf p = join(tmp_dir, name);
    ck_assert_int_eq(tf_encoder_save(enc, p.s), TF_OK);
    return read_bytes(p.s);
}

/* ---- Saving --------------------------------------------------------------- */

/* The old writer used "<path>.tmp<pid>" and followed a link planted there,
 * overwriting the link's target. */
START_TEST(test_save_does_not_follow_a_link_at_a_temporary_name)
{
    make_tmp_dir();
    tf_encoder *model = make_model(1);
    const path_buf target = join(tmp_dir, "model.safetensors"), victim = join(tmp_dir, "victim");
    FILE *f = fopen(victim.s, "w");
    ck_assert_ptr_nonnull(f);
    fputs("precious\n", f);
    fclose(f);
    char old_name[1100];
    snprintf(old_name, sizeof old_name, "%s.tmp%d", target.s, (int)getpid());
    ck_assert_int_eq(symlink(victim.s, old_name), 0);

    ck_assert_int_eq(tf_encoder_save(model, target.s), TF_OK);
    const bytes v = read_bytes(victim.s);
    ck_assert_msg(v.size == 9 && memcmp(v.data, "precious\n", 9) == 0,
                  "the save wrote through the link into its target (%zu bytes now)", v.size);
    char link[1100] = "";
    ck_assert_int_eq(readlink(old_name, link, sizeof link - 1), (ssize_t)strlen(victim.s));
    ck_assert_str_eq(link, victim.s);
    struct stat st;
    ck_assert_int_eq(lstat(target.s, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "%s is not a regular file", target.s);
    tf_encoder *back;
    ck_assert_int_eq(tf_encoder_load(target.s, NULL, &back), TF_OK);
    ck_assert(same_weights(back, model));
    ck_assert_int_eq(count_entries(tmp_dir), 3); /* target, victim, link: no temporary */
    free(v.data);
    tf_encoder_destroy(back);
    tf_encoder_destroy(model);
    remove_tmp_dir();
}
END_TEST

/* A node that is not a regular file, created in the test's directory. */
typedef struct node_case {
    const char *kind; /* as the message names it */
    int (*make)(const char *path);
} node_case;

static int make_fifo(const char *path)
{
    return mkfifo(path, 0666);
}

static int make_directory(const char *path)
{
    return mkdir(path, 0777);
}

/* /dev/full's device numbers: every write fails with ENOSPC. */
static int make_full_device(const char *path)
{
    return mknod(path, S_IFCHR | 0666, makedev(1, 7));
}

static int make_link(const char *path)
{
    return symlink("/dev/null", path);
}

static const node_case nodes[] = {
    {"a FIFO", make_fifo},
    {"a directory", make_directory},
    {"a character device", make_full_device},
    {"a symbolic link", make_link},
};

/* Creates nodes[i] at path; 0 where the system refuses (mknod without
 * CAP_MKNOD), and the case is skipped. */
static int make_node(int i, const char *path)
{
    if (nodes[i].make(path) == 0)
        return 1;
    ck_assert_msg(errno == EPERM, "%s: cannot create %s: %s", path, nodes[i].kind, strerror(errno));
    fprintf(stderr, "%s: cannot create %s here (EPERM): case skipped\n", path, nodes[i].kind);
    return 0;
}

static mode_t node_type(const char *path)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

/* The old writer renamed its file over the node (a device node became a
 * regular file) and returned TF_OK. */
START_TEST(test_save_refuses_a_path_that_is_not_a_regular_file)
{
    make_tmp_dir();
    const path_buf target = join(tmp_dir, "model.safetensors");
    if (make_node(_i, target.s)) {
        const mode_t type = node_type(target.s);
        tf_encoder *model = make_model(1);
        char message[1200];
        snprintf(message, sizeof message, "%s: not a regular file: it is %s", target.s,
                 nodes[_i].kind);
        expect_failure(tf_encoder_save(model, target.s), TF_ERR_IO, message);
        ck_assert_uint_eq(node_type(target.s), type);
        ck_assert_int_eq(count_entries(tmp_dir), 1); /* no temporary */
        tf_encoder_destroy(model);
    }
    remove_tmp_dir();
}
END_TEST

typedef struct saver {
    const tf_encoder *model;     /* what this thread saves */
    const tf_encoder *models[2]; /* what the file may hold */
    const bytes *files;          /* [2]: each model's bytes */
    const char *path;
    int failed_saves, failed_loads, foreign_weights, foreign_bytes;
    char first_error[512];
} saver;

/* Which of the two the loaded encoder is, or -1. */
static int which_model(const saver *w, const tf_encoder *enc)
{
    return same_weights(enc, w->models[0]) ? 0 : same_weights(enc, w->models[1]) ? 1 : -1;
}

static void note_error(saver *w)
{
    if (!w->first_error[0])
        snprintf(w->first_error, sizeof w->first_error, "%s", tf_last_error());
}

/* Saves its model, then loads whatever the path holds now and reads its
 * bytes: each must be one of the two models, exactly. */
static void *save_repeatedly(void *arg)
{
    saver *w = arg;
    for (int k = 0; k < SAVES_PER_THREAD; k++) {
        if (tf_encoder_save(w->model, w->path) != TF_OK) {
            w->failed_saves++;
            note_error(w);
            continue;
        }
        tf_encoder *back = NULL;
        if (tf_encoder_load(w->path, NULL, &back) != TF_OK) {
            w->failed_loads++;
            note_error(w);
        } else {
            w->foreign_weights += which_model(w, back) < 0;
        }
        tf_encoder_destroy(back);
        FILE *f = fopen(w->path, "rb");
        unsigned char *buf = malloc(w->files[0].size + 1);
        const size_t n = f && buf ? fread(buf, 1, w->files[0].size + 1, f) : 0;
        const bytes got = {buf, n};
        w->foreign_bytes += !same_bytes(got, w->files[0]) && !same_bytes(got, w->files[1]);
        free(buf);
        if (f)
            fclose(f);
    }
    return NULL;
}

/* The old writer shared one temporary name per process: saves failed with
 * "No such file or directory" and one file mixed both models' weights. */
START_TEST(test_concurrent_saves_to_one_path_each_succeed_whole)
{
    make_tmp_dir();
    tf_encoder *models[2] = {make_model(1), make_model(2)};
    ck_assert(!same_weights(models[0], models[1]));
    const bytes files[2] = {saved_bytes(models[0], "a"), saved_bytes(models[1], "b")};
    ck_assert_uint_eq(files[0].size, files[1].size);
    const path_buf shared = join(tmp_dir, "model.safetensors");
    pthread_t threads[SAVERS];
    saver savers[SAVERS];
    for (int t = 0; t < SAVERS; t++) {
        savers[t] = (saver){.model = models[t % 2],
                            .models = {models[0], models[1]},
                            .files = files,
                            .path = shared.s};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, save_repeatedly, &savers[t]), 0);
    }
    for (int t = 0; t < SAVERS; t++) {
        ck_assert_int_eq(pthread_join(threads[t], NULL), 0);
        const saver *w = &savers[t];
        ck_assert_msg(w->failed_saves == 0 && w->failed_loads == 0,
                      "thread %d: %d of %d saves and %d loads failed, first: %s", t,
                      w->failed_saves, SAVES_PER_THREAD, w->failed_loads, w->first_error);
        ck_assert_msg(w->foreign_weights == 0 && w->foreign_bytes == 0,
                      "thread %d: %d loads and %d reads were neither model", t, w->foreign_weights,
                      w->foreign_bytes);
    }
    const bytes last = read_bytes(shared.s);
    ck_assert(same_bytes(last, files[0]) || same_bytes(last, files[1]));
    tf_encoder *back;
    ck_assert_int_eq(tf_encoder_load(shared.s, NULL, &back), TF_OK);
    ck_assert(same_weights(back, models[same_bytes(last, files[0]) ? 0 : 1]));
    ck_assert_int_eq(count_entries(tmp_dir), 3); /* a, b, the shared file: no temporary */
    tf_encoder_destroy(back);
    for (int i = 0; i < 2; i++) {
        free(files[i].data);
        tf_encoder_destroy(models[i]);
    }
    free(last.data);
    remove_tmp_dir();
}
END_TEST

/* How a save is made to fail in a child, before it saves. */
typedef struct failing_save {
    const char *what;     /* for messages */
    int (*prepare)(void); /* 1 when ready */
    const char *message;  /* in the error */
} failing_save;

/* Root writes anywhere: become nobody, whom the directory (0755, root's)
 * does not let create a file. */
static int become_nobody(void)
{
    return setgid(NOBODY) == 0 && setuid(NOBODY) == 0 && geteuid() == NOBODY;
}

/* The file may grow to 4 KiB: the save fails in the middle of its data. */
static int limit_file_size(void)
{
    const struct rlimit limit = {4096, 4096};
    return signal(SIGXFSZ, SIG_IGN) != SIG_ERR && setrlimit(RLIMIT_FSIZE, &limit) == 0;
}

static const failing_save failing_saves[] = {
    {"as nobody in a directory it cannot write", become_nobody, "Permission denied"},
    {"over a 4 KiB file-size limit", limit_file_size, "File too large"},
};

START_TEST(test_failed_save_leaves_no_temporary_and_the_old_file)
{
    make_tmp_dir();
    ck_assert_int_eq(chmod(tmp_dir, 0755), 0);
    tf_encoder *old_model = make_model(1), *new_model = make_model(2);
    const path_buf target = join(tmp_dir, "model.safetensors");
    const bytes old_file = saved_bytes(old_model, "model.safetensors");
    ck_assert_uint_gt(old_file.size, 4096 * 2);
    ck_assert_int_eq(chmod(target.s, 0666), 0); /* writable in place, by anyone */
    const failing_save *f = &failing_saves[_i];
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (!f->prepare())
            _exit(2);
        const tf_status s = tf_encoder_save(new_model, target.s);
        const int named = strstr(tf_last_error(), target.s) && strstr(tf_last_error(), f->message);
        if (s != TF_ERR_IO || !named)
            fprintf(stderr, "%s: got %s \"%s\"\n", f->what, tf_status_name(s), tf_last_error());
        _exit(s == TF_ERR_IO && named ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "saving %s: %s", f->what,
                  WIFEXITED(status) && WEXITSTATUS(status) == 2
                      ? "cannot set the child up"
                      : "did not fail with TF_ERR_IO naming the path and the cause");
    ck_assert_int_eq(count_entries(tmp_dir), 1); /* no temporary */
    const bytes now = read_bytes(target.s);
    ck_assert_msg(same_bytes(now, old_file), "saving %s changed the old file", f->what);
    free(now.data);
    free(old_file.data);
    tf_encoder_destroy(old_model);
    tf_encoder_destroy(new_model);
    remove_tmp_dir();
}
END_TEST

/* As any new file: 0666 less the umask (not mkstemp's 0600). */
START_TEST(test_saved_file_mode_honours_the_umask)
{
    make_tmp_dir();
    tf_encoder *model = make_model(1);
    const path_buf target = join(tmp_dir, "model.safetensors");
    const mode_t masks[] = {022, 002, 077};
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        const mode_t old_mask = umask(masks[i]);
        const tf_status s = tf_encoder_save(model, target.s);
        umask(old_mask);
        ck_assert_int_eq(s, TF_OK);
        struct stat st;
        ck_assert_int_eq(stat(target.s, &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0666 & ~masks[i]);
    }
    tf_encoder_destroy(model);
    remove_tmp_dir();
}
END_TEST

/* ---- Reading -------------------------------------------------------------- */

/* One file the library reads, replaced by a node. */
typedef struct read_case {
    const char *file; /* in the model directory */
    tf_status (*read)(const char *dir, const char *path);
} read_case;

static tf_status load_model(const char *dir, const char *path)
{
    (void)path;
    tf_encoder *enc = NULL;
    const tf_status s = tf_encoder_load(dir, NULL, &enc);
    tf_encoder_destroy(enc);
    return s;
}

static tf_status load_vocab(const char *dir, const char *path)
{
    (void)dir;
    tf_tokenizer *tok = NULL;
    const tf_status s = tf_tokenizer_load(path, NULL, &tok);
    tf_tokenizer_destroy(tok);
    return s;
}

static const read_case reads[] = {
    {"config.json", load_model},
    {"model.safetensors", load_model},
    {"vocab.txt", load_vocab},
};

/* The node kinds a reader meets (a link is followed, to a regular file or
 * to one of these). */
enum { READ_NODES = 3 };

/* reads[_i / READ_NODES] with nodes[_i % READ_NODES] as its file, the
 * other files of a BERT directory regular (links to the fixture's). */
START_TEST(test_reading_a_file_that_is_not_regular_is_an_error_not_a_hang)
{
    const read_case *r = &reads[_i / READ_NODES];
    const int node = _i % READ_NODES;
    make_tmp_dir();
    const char *fixture[] = {"config.json", "model.safetensors"};
    for (size_t k = 0; k < 2; k++)
        if (strcmp(fixture[k], r->file) != 0)
            ck_assert_int_eq(symlink(join(join(data_dir, "bert_tiny").s, fixture[k]).s,
                                     join(tmp_dir, fixture[k]).s),
                             0);
    const path_buf path = join(tmp_dir, r->file);
    if (make_node(node, path.s)) {
        char message[1200];
        snprintf(message, sizeof message, "%s: not a regular file: it is %s", path.s,
                 nodes[node].kind);
        const pid_t child = fork();
        ck_assert_int_ge(child, 0);
        if (child == 0) {
            /* the old readers blocked in open() forever; Check's own
             * SIGALRM handler, inherited, would kill the whole test */
            signal(SIGALRM, SIG_DFL);
            alarm(HANG_GUARD_SECONDS);
            const tf_status s = r->read(tmp_dir, path.s);
            const int ok = s == TF_ERR_IO && strstr(tf_last_error(), message);
            if (!ok)
                fprintf(stderr, "got %s \"%s\"\n", tf_status_name(s), tf_last_error());
            _exit(ok ? 0 : 1);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(child, &status, 0), child);
        ck_assert_msg(!WIFSIGNALED(status), "reading %s (%s): hung, killed by signal %d", path.s,
                      nodes[node].kind, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "reading %s (%s): not TF_ERR_IO \"%s\"", path.s, nodes[node].kind, message);
    }
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("files");
    TCase *save = tcase_create("save");
    tcase_set_timeout(save, 120);
    tcase_add_test(save, test_save_does_not_follow_a_link_at_a_temporary_name);
    tcase_add_loop_test(save, test_save_refuses_a_path_that_is_not_a_regular_file, 0,
                        sizeof nodes / sizeof nodes[0]);
    tcase_add_test(save, test_concurrent_saves_to_one_path_each_succeed_whole);
    tcase_add_loop_test(save, test_failed_save_leaves_no_temporary_and_the_old_file, 0,
                        sizeof failing_saves / sizeof failing_saves[0]);
    tcase_add_test(save, test_saved_file_mode_honours_the_umask);
    suite_add_tcase(s, save);
    TCase *read = tcase_create("read");
    tcase_set_timeout(read, 2 * HANG_GUARD_SECONDS);
    tcase_add_loop_test(read, test_reading_a_file_that_is_not_regular_is_an_error_not_a_hang, 0,
                        (int)(sizeof reads / sizeof reads[0]) * READ_NODES);
    suite_add_tcase(s, read);
    return run_suite(s);
}
