/* openapi.c — the OpenAPI document of this server, its paths from the
 * route table and its schemas below: text-embeddings-inference's
 * (docs/openapi.json of TEI 1.9.3, descriptions and examples left out)
 * for the routes TEI has, with this server's differences (EmbedRequest's
 * and OpenAICompatRequest's dimensions_layer_norm; EmbeddingModel's dim
 * and similarity for TEI's pooling), and OpenAI's for its routes. */
#include "openapi.h"

#include <ctype.h>
#include <string.h>

#include "route_table.h"
#include "tfenc.h"

/* components.schemas, one JSON object. */
static const char schemas[] =
    "{\"ClassifierModel\":{\"properties\":{\"id2label\":{\"additionalProperties\":{\"type\":\"s"
    "tring\"},\"type\":\"object\"},\"label2id\":{\"additionalProperties\":{\"minimum\":0,\"type"
    "\":\"integer\"},\"type\":\"object\"}},\"required\":[\"id2label\",\"label2id\"],\"type\":\""
    "object\"},\"DecodeRequest\":{\"properties\":{\"ids\":{\"$ref\":\"#/components/schemas/Inpu"
    "tIds\"},\"skip_special_tokens\":{\"default\":\"true\",\"type\":\"boolean\"}},\"required\":"
    "[\"ids\"],\"type\":\"object\"},\"DecodeResponse\":{\"items\":{\"type\":\"string\"},\"type"
    "\":\"array\"},\"EmbedAllRequest\":{\"properties\":{\"inputs\":{\"$ref\":\"#/components/sch"
    "emas/Input\"},\"prompt_name\":{\"default\":\"null\",\"nullable\":true,\"type\":\"string\"}"
    ",\"truncate\":{\"default\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"truncation_"
    "direction\":{\"allOf\":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],\"default"
    "\":\"right\"}},\"required\":[\"inputs\"],\"type\":\"object\"},\"EmbedAllResponse\":{\"item"
    "s\":{\"items\":{\"items\":{\"format\":\"float\",\"type\":\"number\"},\"type\":\"array\"},"
    "\"type\":\"array\"},\"type\":\"array\"},\"EmbedRequest\":{\"properties\":{\"dimensions\":{"
    "\"default\":\"null\",\"minimum\":0,\"nullable\":true,\"type\":\"integer\"},\"dimensions_la"
    "yer_norm\":{\"nullable\":true,\"type\":\"boolean\"},\"inputs\":{\"$ref\":\"#/components/sc"
    "hemas/Input\"},\"normalize\":{\"default\":\"true\",\"type\":\"boolean\"},\"prompt_name\":{"
    "\"default\":\"null\",\"nullable\":true,\"type\":\"string\"},\"truncate\":{\"default\":\"fa"
    "lse\",\"nullable\":true,\"type\":\"boolean\"},\"truncation_direction\":{\"allOf\":[{\"$ref"
    "\":\"#/components/schemas/TruncationDirection\"}],\"default\":\"right\"}},\"required\":[\""
    "inputs\"],\"type\":\"object\"},\"EmbedResponse\":{\"items\":{\"items\":{\"format\":\"float"
    "\",\"type\":\"number\"},\"type\":\"array\"},\"type\":\"array\"},\"Embedding\":{\"oneOf\":["
    "{\"items\":{\"format\":\"float\",\"type\":\"number\"},\"type\":\"array\"},{\"type\":\"stri"
    "ng\"}]},\"EmbeddingModel\":{\"properties\":{\"dim\":{\"minimum\":1,\"type\":\"integer\"},"
    "\"similarity\":{\"enum\":[\"cosine\",\"dot\",\"euclidean\",\"manhattan\"],\"type\":\"strin"
    "g\"}},\"required\":[\"dim\",\"similarity\"],\"type\":\"object\"},\"EncodingFormat\":{\"enu"
    "m\":[\"float\",\"base64\"],\"type\":\"string\"},\"ErrorResponse\":{\"properties\":{\"error"
    "\":{\"type\":\"string\"},\"error_type\":{\"$ref\":\"#/components/schemas/ErrorType\"}},\"r"
    "equired\":[\"error\",\"error_type\"],\"type\":\"object\"},\"ErrorType\":{\"enum\":[\"Unhea"
    "lthy\",\"Backend\",\"Overloaded\",\"Validation\",\"Tokenizer\",\"Empty\"],\"type\":\"strin"
    "g\"},\"Info\":{\"properties\":{\"auto_truncate\":{\"type\":\"boolean\"},\"docker_label\":{"
    "\"nullable\":true,\"type\":\"string\"},\"max_batch_requests\":{\"default\":\"null\",\"mini"
    "mum\":0,\"nullable\":true,\"type\":\"integer\"},\"max_batch_tokens\":{\"minimum\":0,\"type"
    "\":\"integer\"},\"max_client_batch_size\":{\"minimum\":0,\"type\":\"integer\"},\"max_concu"
    "rrent_requests\":{\"minimum\":0,\"type\":\"integer\"},\"max_input_length\":{\"minimum\":0,"
    "\"type\":\"integer\"},\"model_dtype\":{\"type\":\"string\"},\"model_id\":{\"type\":\"strin"
    "g\"},\"model_sha\":{\"nullable\":true,\"type\":\"string\"},\"model_type\":{\"$ref\":\"#/co"
    "mponents/schemas/ModelType\"},\"served_model_name\":{\"type\":\"string\"},\"sha\":{\"nulla"
    "ble\":true,\"type\":\"string\"},\"tokenization_workers\":{\"minimum\":0,\"type\":\"integer"
    "\"},\"version\":{\"type\":\"string\"}},\"required\":[\"model_id\",\"model_dtype\",\"served"
    "_model_name\",\"model_type\",\"max_concurrent_requests\",\"max_input_length\",\"max_batch_"
    "tokens\",\"max_client_batch_size\",\"auto_truncate\",\"tokenization_workers\",\"version\"]"
    ",\"type\":\"object\"},\"Input\":{\"oneOf\":[{\"$ref\":\"#/components/schemas/InputType\"},"
    "{\"items\":{\"$ref\":\"#/components/schemas/InputType\"},\"type\":\"array\"}]},\"InputIds"
    "\":{\"oneOf\":[{\"items\":{\"format\":\"int32\",\"minimum\":0,\"type\":\"integer\"},\"type"
    "\":\"array\"},{\"items\":{\"items\":{\"format\":\"int32\",\"minimum\":0,\"type\":\"integer"
    "\"},\"type\":\"array\"},\"type\":\"array\"}]},\"InputType\":{\"oneOf\":[{\"type\":\"string"
    "\"},{\"items\":{\"format\":\"int32\",\"minimum\":0,\"type\":\"integer\"},\"type\":\"array"
    "\"}]},\"ListModelsResponse\":{\"properties\":{\"data\":{\"items\":{\"properties\":{\"creat"
    "ed\":{\"type\":\"integer\"},\"id\":{\"type\":\"string\"},\"object\":{\"enum\":[\"model\"],"
    "\"type\":\"string\"},\"owned_by\":{\"type\":\"string\"}},\"required\":[\"id\",\"object\","
    "\"created\",\"owned_by\"],\"type\":\"object\"},\"type\":\"array\"},\"object\":{\"enum\":["
    "\"list\"],\"type\":\"string\"}},\"required\":[\"object\",\"data\"],\"type\":\"object\"},\""
    "ModelType\":{\"oneOf\":[{\"properties\":{\"classifier\":{\"$ref\":\"#/components/schemas/C"
    "lassifierModel\"}},\"required\":[\"classifier\"],\"type\":\"object\"},{\"properties\":{\"e"
    "mbedding\":{\"$ref\":\"#/components/schemas/EmbeddingModel\"}},\"required\":[\"embedding\""
    "],\"type\":\"object\"},{\"properties\":{\"reranker\":{\"$ref\":\"#/components/schemas/Clas"
    "sifierModel\"}},\"required\":[\"reranker\"],\"type\":\"object\"}]},\"OpenAICompatEmbedding"
    "\":{\"properties\":{\"embedding\":{\"$ref\":\"#/components/schemas/Embedding\"},\"index\":"
    "{\"minimum\":0,\"type\":\"integer\"},\"object\":{\"type\":\"string\"}},\"required\":[\"obj"
    "ect\",\"embedding\",\"index\"],\"type\":\"object\"},\"OpenAICompatRequest\":{\"properties"
    "\":{\"dimensions\":{\"default\":\"null\",\"minimum\":0,\"nullable\":true,\"type\":\"intege"
    "r\"},\"dimensions_layer_norm\":{\"nullable\":true,\"type\":\"boolean\"},\"encoding_format"
    "\":{\"allOf\":[{\"$ref\":\"#/components/schemas/EncodingFormat\"}],\"default\":\"float\"},"
    "\"input\":{\"$ref\":\"#/components/schemas/Input\"},\"model\":{\"nullable\":true,\"type\":"
    "\"string\"},\"user\":{\"nullable\":true,\"type\":\"string\"}},\"required\":[\"input\"],\"t"
    "ype\":\"object\"},\"OpenAICompatResponse\":{\"properties\":{\"data\":{\"items\":{\"$ref\":"
    "\"#/components/schemas/OpenAICompatEmbedding\"},\"type\":\"array\"},\"model\":{\"type\":\""
    "string\"},\"object\":{\"type\":\"string\"},\"usage\":{\"$ref\":\"#/components/schemas/Open"
    "AICompatUsage\"}},\"required\":[\"object\",\"data\",\"model\",\"usage\"],\"type\":\"object"
    "\"},\"OpenAICompatUsage\":{\"properties\":{\"prompt_tokens\":{\"minimum\":0,\"type\":\"int"
    "eger\"},\"total_tokens\":{\"minimum\":0,\"type\":\"integer\"}},\"required\":[\"prompt_toke"
    "ns\",\"total_tokens\"],\"type\":\"object\"},\"OpenAIErrorResponse\":{\"properties\":{\"err"
    "or\":{\"properties\":{\"code\":{\"type\":\"integer\"},\"message\":{\"type\":\"string\"},\""
    "param\":{\"nullable\":true,\"type\":\"string\"},\"type\":{\"type\":\"string\"}},\"required"
    "\":[\"message\",\"type\",\"param\",\"code\"],\"type\":\"object\"}},\"required\":[\"error\""
    "],\"type\":\"object\"},\"PredictInput\":{\"oneOf\":[{\"type\":\"string\"},{\"items\":{\"ty"
    "pe\":\"string\"},\"maxItems\":2,\"minItems\":2,\"type\":\"array\"},{\"items\":{\"oneOf\":["
    "{\"items\":{\"type\":\"string\"},\"maxItems\":1,\"minItems\":1,\"type\":\"array\"},{\"item"
    "s\":{\"type\":\"string\"},\"maxItems\":2,\"minItems\":2,\"type\":\"array\"}]},\"type\":\"a"
    "rray\"}]},\"PredictRequest\":{\"properties\":{\"inputs\":{\"$ref\":\"#/components/schemas/"
    "PredictInput\"},\"raw_scores\":{\"default\":\"false\",\"type\":\"boolean\"},\"truncate\":{"
    "\"default\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"truncation_direction\":{\""
    "allOf\":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],\"default\":\"right\"}},"
    "\"required\":[\"inputs\"],\"type\":\"object\"},\"PredictResponse\":{\"oneOf\":[{\"items\":"
    "{\"$ref\":\"#/components/schemas/Prediction\"},\"type\":\"array\"},{\"items\":{\"items\":{"
    "\"$ref\":\"#/components/schemas/Prediction\"},\"type\":\"array\"},\"type\":\"array\"}]},\""
    "Prediction\":{\"properties\":{\"label\":{\"type\":\"string\"},\"score\":{\"format\":\"floa"
    "t\",\"type\":\"number\"}},\"required\":[\"score\",\"label\"],\"type\":\"object\"},\"Rank\""
    ":{\"properties\":{\"index\":{\"minimum\":0,\"type\":\"integer\"},\"score\":{\"format\":\"f"
    "loat\",\"type\":\"number\"},\"text\":{\"default\":\"null\",\"nullable\":true,\"type\":\"st"
    "ring\"}},\"required\":[\"index\",\"score\"],\"type\":\"object\"},\"RerankRequest\":{\"prop"
    "erties\":{\"query\":{\"type\":\"string\"},\"raw_scores\":{\"default\":\"false\",\"type\":"
    "\"boolean\"},\"return_text\":{\"default\":\"false\",\"type\":\"boolean\"},\"texts\":{\"ite"
    "ms\":{\"type\":\"string\"},\"type\":\"array\"},\"truncate\":{\"default\":\"false\",\"nulla"
    "ble\":true,\"type\":\"boolean\"},\"truncation_direction\":{\"allOf\":[{\"$ref\":\"#/compon"
    "ents/schemas/TruncationDirection\"}],\"default\":\"right\"}},\"required\":[\"query\",\"tex"
    "ts\"],\"type\":\"object\"},\"RerankResponse\":{\"items\":{\"$ref\":\"#/components/schemas/"
    "Rank\"},\"type\":\"array\"},\"SimilarityInput\":{\"properties\":{\"sentences\":{\"items\":"
    "{\"type\":\"string\"},\"type\":\"array\"},\"source_sentence\":{\"type\":\"string\"}},\"req"
    "uired\":[\"source_sentence\",\"sentences\"],\"type\":\"object\"},\"SimilarityParameters\":"
    "{\"properties\":{\"prompt_name\":{\"default\":\"null\",\"nullable\":true,\"type\":\"string"
    "\"},\"truncate\":{\"default\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"truncati"
    "on_direction\":{\"allOf\":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],\"defa"
    "ult\":\"right\"}},\"type\":\"object\"},\"SimilarityRequest\":{\"properties\":{\"inputs\":{"
    "\"$ref\":\"#/components/schemas/SimilarityInput\"},\"parameters\":{\"allOf\":[{\"$ref\":\""
    "#/components/schemas/SimilarityParameters\"}],\"default\":\"null\",\"nullable\":true}},\"r"
    "equired\":[\"inputs\"],\"type\":\"object\"},\"SimilarityResponse\":{\"items\":{\"format\":"
    "\"float\",\"type\":\"number\"},\"type\":\"array\"},\"SimpleToken\":{\"properties\":{\"id\""
    ":{\"format\":\"int32\",\"minimum\":0,\"type\":\"integer\"},\"special\":{\"type\":\"boolean"
    "\"},\"start\":{\"minimum\":0,\"nullable\":true,\"type\":\"integer\"},\"stop\":{\"minimum\""
    ":0,\"nullable\":true,\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},\"required\":["
    "\"id\",\"text\",\"special\"],\"type\":\"object\"},\"TokenizeInput\":{\"oneOf\":[{\"type\":"
    "\"string\"},{\"items\":{\"type\":\"string\"},\"type\":\"array\"}]},\"TokenizeRequest\":{\""
    "properties\":{\"add_special_tokens\":{\"default\":\"true\",\"type\":\"boolean\"},\"inputs"
    "\":{\"$ref\":\"#/components/schemas/TokenizeInput\"},\"prompt_name\":{\"default\":\"null\""
    ",\"nullable\":true,\"type\":\"string\"}},\"required\":[\"inputs\"],\"type\":\"object\"},\""
    "TokenizeResponse\":{\"items\":{\"items\":{\"$ref\":\"#/components/schemas/SimpleToken\"},"
    "\"type\":\"array\"},\"type\":\"array\"},\"TruncationDirection\":{\"enum\":[\"Left\",\"Righ"
    "t\"],\"type\":\"string\"}}";

/* A JSON reference to schema `name` as a media type's content. */
static void write_content(json_out *o, const char *type, const char *name)
{
    json_out_printf(o, "\"content\":{\"%s\":{\"schema\":", type);
    if (name) {
        json_out_str(o, "{\"$ref\":\"#/components/schemas/");
        json_out_str(o, name);
        json_out_str(o, "\"}");
    } else {
        json_out_str(o, "{\"type\":\"string\"}");
    }
    json_out_str(o, "}}");
}

/* The media type a route without a response schema answers. */
static const char *text_type(const serve_route *r)
{
    return strcmp(r->path, "/docs") == 0 ? "text/html" : "text/plain";
}

/* r's operation: {"summary", "requestBody", "responses"}. */
static void write_operation(json_out *o, const serve_route *r)
{
    char method[8] = "";
    for (size_t k = 0; r->method[k] && k + 1 < sizeof method; k++)
        method[k] = (char)tolower((unsigned char)r->method[k]);
    json_out_printf(o, "\"%s\":{\"summary\":", method);
    json_out_string(o, r->summary ? r->summary : "");
    if (r->request_schema) {
        json_out_str(o, ",\"requestBody\":{\"required\":true,");
        write_content(o, "application/json", r->request_schema);
        json_out_str(o, "}");
    }
    json_out_str(o, ",\"responses\":{\"200\":{\"description\":\"OK\",");
    if (r->response_schema || !strcmp(r->path, "/health") || r->runs)
        write_content(o, "application/json", r->response_schema);
    else
        write_content(o, text_type(r), NULL);
    json_out_str(o, "},\"default\":{\"description\":\"Refused\",");
    write_content(o, "application/json",
                  r->errors == SERVE_ERRORS_OPENAI ? "OpenAIErrorResponse" : "ErrorResponse");
    json_out_str(o, "}}}");
}

void openapi_write(json_out *o)
{
    json_out_printf(o,
                    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"tfenc serve\",\"version\":"
                    "\"%s\",\"description\":\"text-embeddings-inference's and OpenAI's "
                    "embedding APIs on libtfenc\"},\"paths\":{",
                    tf_version_string());
    for (size_t i = 0; i < serve_routes_count; i++) {
        const serve_route *r = serve_routes[i];
        json_out_str(o, i ? "," : "");
        json_out_string(o, r->path);
        json_out_str(o, ":{");
        write_operation(o, r);
        json_out_str(o, "}");
    }
    json_out_str(o, "},\"components\":{\"schemas\":");
    json_out_str(o, schemas);
    json_out_str(o, "}}");
}
