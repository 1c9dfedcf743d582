/* route_docs.c — GET /docs: a page that shows /api-doc/openapi.json's
 * document (held in the page, drawn by the page's own script: nothing is
 * fetched from elsewhere): each route with its summary, its request's and
 * its answer's schemas, and the schemas. */
#include "openapi.h"
#include "route.h"

static const char head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tfenc serve API</title>\n"
    "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
    "pre{background:#f4f4f4;padding:.5em;overflow:auto}code{font-weight:bold}</style>\n"
    "</head><body><h1>tfenc serve API</h1><div id=\"doc\"></div>\n"
    "<script type=\"application/json\" id=\"spec\">";

static const char tail[] =
    "</script>\n<script>\n"
    "const spec = JSON.parse(document.getElementById('spec').textContent);\n"
    "const doc = document.getElementById('doc');\n"
    "function add(tag, text) { const e = document.createElement(tag); e.textContent = text;\n"
    "  doc.appendChild(e); return e; }\n"
    "add('p', spec.info.description + ' (version ' + spec.info.version + ')');\n"
    "const name = c => c ? Object.values(c)[0].schema.$ref : undefined;\n"
    "for (const [path, item] of Object.entries(spec.paths))\n"
    "  for (const [method, op] of Object.entries(item)) {\n"
    "    add('h2', method.toUpperCase() + ' ' + path);\n"
    "    add('p', op.summary);\n"
    "    const req = op.requestBody && name(op.requestBody.content);\n"
    "    const res = name(op.responses['200'].content);\n"
    "    if (req) add('p', 'request: ' + req.split('/').pop());\n"
    "    if (res) add('p', 'response: ' + res.split('/').pop());\n"
    "  }\n"
    "add('h2', 'Schemas');\n"
    "for (const [n, schema] of Object.entries(spec.components.schemas)) {\n"
    "  add('h3', n); add('pre', JSON.stringify(schema, null, 2)); }\n"
    "</script></body></html>\n";

static int handle(serve_server *s, const serve_route *route, const serve_request *q,
                  serve_response *out, serve_error *e)
{
    json_out spec = {0}, o = {0};
    (void)s, (void)route, (void)q, (void)e;
    openapi_write(&spec);
    json_out_str(&o, head);
    /* the document in the page: "<" (only ever in its strings) as \u003c, so
       that no "</script>" can end the element */
    for (size_t i = 0; !spec.failed && i < spec.len; i++)
        if (spec.data[i] == '<')
            json_out_str(&o, "\\u003c");
        else
            json_out_raw(&o, spec.data + i, 1);
    if (spec.failed)
        json_out_free(&o), o.failed = 1;
    json_out_free(&spec);
    json_out_str(&o, tail);
    serve_respond_json(out, 200, &o);
    out->content_type = "text/html; charset=utf-8";
    return 0;
}

const serve_route route_docs = {
    .path = "/docs",
    .method = "GET",
    .errors = SERVE_ERRORS_TEI,
    .kind = SERVE_NO_KIND,
    .no_key = 1,
    .handle = handle,
    .summary = "This page: the OpenAPI document shown",
};
