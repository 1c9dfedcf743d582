/* openapi.h — the OpenAPI 3 document of this server (GET
 * /api-doc/openapi.json, and /docs's page): a path for each route of the
 * table (route.h's summary and schema names), and the schemas. */
#ifndef SERVE_OPENAPI_H
#define SERVE_OPENAPI_H

#include "json_out.h"

void openapi_write(json_out *o);

#endif
