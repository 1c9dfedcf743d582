/* hub_fetch_absent.c — tf__hub_fetch of a library built without the Hub
 * client (meson -Dhub=disabled, or no libcurl or libcrypto): the cache is
 * all there is. See hub.h. */
#include "error.h"
#include "hub.h"

tf_status tf__hub_fetch(const tf__hub_request *req, char *commit, int *fallback)
{
    (void)commit;
    *fallback = 1;
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s at revision %s: this libtfenc was built without the "
                    "Hub client (meson -Dhub=enabled needs libcurl and libcrypto), so it reads "
                    "only what huggingface_hub's cache holds",
                    req->repo_id, req->revision);
}
