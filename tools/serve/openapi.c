/* openapi.c — the OpenAPI document of this server, its paths from the
 * route table and its schemas below: text-embeddings-inference's
 * (docs/openapi.json of TEI 1.9.3, descriptions and examples left out)
 * for the routes TEI has, with this server's differences (EmbedRequest's
 * and OpenAICompatRequest's dimensions_layer_norm and precision,
 * EmbedAllRequest's is_query and precision, whose Precision schema is the
 * library's names; EmbedRequest's, OpenAICompatRequest's and
 * PredictRequest's and SimilarityRequest's modality, infinity's "text" or
 * "image": image_inputs.h),
 * and OpenAI's for its routes. */
#include "openapi.h"

#include <ctype.h>
#include <string.h>

#include "route_table.h"
#include "tfenc.h"

/* components.schemas, one JSON object. */
static const char schemas[] =
    "{\"ClassifierModel\":{\"properties\":{\"id2label\":{\"additionalProperties\":{\"type\":"
    "\"string\"},\"type\":\"object\"},\"label2id\":{\"additionalProperties\":{\"minimum\":0,"
    "\"type\":\"integer\"},\"type\":\"object\"}},\"required\":[\"id2label\",\"label2id\"],\"t"
    "ype\":\"object\"},\"DecodeRequest\":{\"properties\":{\"ids\":{\"$ref\":\"#/components/sc"
    "hemas/InputIds\"},\"skip_special_tokens\":{\"default\":\"true\",\"type\":\"boolean\"}},"
    "\"required\":[\"ids\"],\"type\":\"object\"},\"DecodeResponse\":{\"items\":{\"type\":\"st"
    "ring\"},\"type\":\"array\"},\"EmbedAllRequest\":{\"properties\":{\"inputs\":{\"$ref\":\""
    "#/components/schemas/Input\"},\"is_query\":{\"default\":\"false\",\"type\":\"boolean\"},"
    "\"precision\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Precision\"}],\"default\":\"f"
    "loat32\",\"nullable\":true},\"prompt_name\":{\"default\":\"null\",\"nullable\":true,\"ty"
    "pe\":\"string\"},\"truncate\":{\"default\":\"false\",\"nullable\":true,\"type\":\"boolea"
    "n\"},\"truncation_direction\":{\"allOf\":[{\"$ref\":\"#/components/schemas/TruncationDir"
    "ection\"}],\"default\":\"right\"}},\"required\":[\"inputs\"],\"type\":\"object\"},\"Embe"
    "dAllResponse\":{\"items\":{\"items\":{\"items\":{\"format\":\"float\",\"type\":\"number"
    "\"},\"type\":\"array\"},\"type\":\"array\"},\"type\":\"array\"},\"EmbedRequest\":{\"prop"
    "erties\":{\"dimensions\":{\"default\":\"null\",\"minimum\":0,\"nullable\":true,\"type\":"
    "\"integer\"},\"dimensions_layer_norm\":{\"nullable\":true,\"type\":\"boolean\"},\"inputs"
    "\":{\"$ref\":\"#/components/schemas/Input\"},\"modality\":{\"allOf\":[{\"$ref\":\"#/comp"
    "onents/schemas/Modality\"}],\"nullable\":true},\"normalize\":{\"default\":\"true\",\"typ"
    "e\":\"boolean\"},\"precision\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Precision\"}"
    "],\"default\":\"float32\",\"nullable\":true},\"prompt_name\":{\"default\":\"null\",\"nul"
    "lable\":true,\"type\":\"string\"},\"truncate\":{\"default\":\"false\",\"nullable\":true,"
    "\"type\":\"boolean\"},\"truncation_direction\":{\"allOf\":[{\"$ref\":\"#/components/sche"
    "mas/TruncationDirection\"}],\"default\":\"right\"}},\"required\":[\"inputs\"],\"type\":"
    "\"object\"},\"EmbedResponse\":{\"items\":{\"items\":{\"format\":\"float\",\"type\":\"num"
    "ber\"},\"type\":\"array\"},\"type\":\"array\"},\"EmbedSparseRequest\":{\"properties\":{"
    "\"inputs\":{\"$ref\":\"#/components/schemas/Input\"},\"prompt_name\":{\"default\":\"null"
    "\",\"nullable\":true,\"type\":\"string\"},\"truncate\":{\"default\":\"false\",\"nullable"
    "\":true,\"type\":\"boolean\"},\"truncation_direction\":{\"allOf\":[{\"$ref\":\"#/compone"
    "nts/schemas/TruncationDirection\"}],\"default\":\"right\"}},\"required\":[\"inputs\"],\""
    "type\":\"object\"},\"EmbedSparseResponse\":{\"items\":{\"items\":{\"$ref\":\"#/component"
    "s/schemas/SparseValue\"},\"type\":\"array\"},\"type\":\"array\"},\"Embedding\":{\"oneOf"
    "\":[{\"items\":{\"format\":\"float\",\"type\":\"number\"},\"type\":\"array\"},{\"type\":"
    "\"string\"}]},\"EmbeddingModel\":{\"properties\":{\"pooling\":{\"type\":\"string\"}},\"r"
    "equired\":[\"pooling\"],\"type\":\"object\"},\"EncodingFormat\":{\"enum\":[\"float\",\"b"
    "ase64\"],\"type\":\"string\"},\"ErrorResponse\":{\"properties\":{\"error\":{\"type\":\"s"
    "tring\"},\"error_type\":{\"$ref\":\"#/components/schemas/ErrorType\"}},\"required\":[\"e"
    "rror\",\"error_type\"],\"type\":\"object\"},\"ErrorType\":{\"enum\":[\"Unhealthy\",\"Bac"
    "kend\",\"Overloaded\",\"Validation\",\"Tokenizer\",\"Empty\"],\"type\":\"string\"},\"Inf"
    "o\":{\"properties\":{\"auto_truncate\":{\"type\":\"boolean\"},\"docker_label\":{\"nullab"
    "le\":true,\"type\":\"string\"},\"max_batch_requests\":{\"default\":\"null\",\"minimum\":"
    "0,\"nullable\":true,\"type\":\"integer\"},\"max_batch_tokens\":{\"minimum\":0,\"type\":"
    "\"integer\"},\"max_client_batch_size\":{\"minimum\":0,\"type\":\"integer\"},\"max_concur"
    "rent_requests\":{\"minimum\":0,\"type\":\"integer\"},\"max_input_length\":{\"minimum\":0"
    ",\"type\":\"integer\"},\"model_dtype\":{\"type\":\"string\"},\"model_id\":{\"type\":\"st"
    "ring\"},\"model_sha\":{\"nullable\":true,\"type\":\"string\"},\"model_type\":{\"$ref\":"
    "\"#/components/schemas/ModelType\"},\"served_model_name\":{\"type\":\"string\"},\"sha\":"
    "{\"nullable\":true,\"type\":\"string\"},\"tokenization_workers\":{\"minimum\":0,\"type\""
    ":\"integer\"},\"version\":{\"type\":\"string\"}},\"required\":[\"model_id\",\"model_dtyp"
    "e\",\"served_model_name\",\"model_type\",\"max_concurrent_requests\",\"max_input_length"
    "\",\"max_batch_tokens\",\"max_client_batch_size\",\"auto_truncate\",\"tokenization_worke"
    "rs\",\"version\"],\"type\":\"object\"},\"Input\":{\"oneOf\":[{\"$ref\":\"#/components/sc"
    "hemas/InputType\"},{\"items\":{\"$ref\":\"#/components/schemas/InputType\"},\"type\":\"a"
    "rray\"}]},\"InputIds\":{\"oneOf\":[{\"items\":{\"format\":\"int32\",\"minimum\":0,\"type"
    "\":\"integer\"},\"type\":\"array\"},{\"items\":{\"items\":{\"format\":\"int32\",\"minimu"
    "m\":0,\"type\":\"integer\"},\"type\":\"array\"},\"type\":\"array\"}]},\"InputType\":{\"o"
    "neOf\":[{\"type\":\"string\"},{\"items\":{\"format\":\"int32\",\"minimum\":0,\"type\":\""
    "integer\"},\"type\":\"array\"}]},\"ListModelsResponse\":{\"properties\":{\"data\":{\"ite"
    "ms\":{\"properties\":{\"created\":{\"type\":\"integer\"},\"id\":{\"type\":\"string\"},\""
    "object\":{\"enum\":[\"model\"],\"type\":\"string\"},\"owned_by\":{\"type\":\"string\"}},"
    "\"required\":[\"id\",\"object\",\"created\",\"owned_by\"],\"type\":\"object\"},\"type\":"
    "\"array\"},\"object\":{\"enum\":[\"list\"],\"type\":\"string\"}},\"required\":[\"object"
    "\",\"data\"],\"type\":\"object\"},\"Modality\":{\"enum\":[\"text\",\"image\"],\"type\":"
    "\"string\"},\"ModelType\":{\"oneOf\":[{\"properties\":{\"classifier\":{\"$ref\":\"#/comp"
    "onents/schemas/ClassifierModel\"}},\"required\":[\"classifier\"],\"type\":\"object\"},{"
    "\"properties\":{\"embedding\":{\"$ref\":\"#/components/schemas/EmbeddingModel\"}},\"requ"
    "ired\":[\"embedding\"],\"type\":\"object\"},{\"properties\":{\"reranker\":{\"$ref\":\"#/"
    "components/schemas/ClassifierModel\"}},\"required\":[\"reranker\"],\"type\":\"object\"}]"
    "},\"OpenAICompatEmbedding\":{\"properties\":{\"embedding\":{\"$ref\":\"#/components/sche"
    "mas/Embedding\"},\"index\":{\"minimum\":0,\"type\":\"integer\"},\"object\":{\"type\":\"s"
    "tring\"}},\"required\":[\"object\",\"embedding\",\"index\"],\"type\":\"object\"},\"OpenA"
    "ICompatRequest\":{\"properties\":{\"dimensions\":{\"default\":\"null\",\"minimum\":0,\"n"
    "ullable\":true,\"type\":\"integer\"},\"dimensions_layer_norm\":{\"nullable\":true,\"type"
    "\":\"boolean\"},\"encoding_format\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Encodin"
    "gFormat\"}],\"default\":\"float\"},\"input\":{\"$ref\":\"#/components/schemas/Input\"},"
    "\"modality\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Modality\"}],\"nullable\":true"
    "},\"model\":{\"nullable\":true,\"type\":\"string\"},\"precision\":{\"allOf\":[{\"$ref\":"
    "\"#/components/schemas/Precision\"}],\"default\":\"float32\",\"nullable\":true},\"user\""
    ":{\"nullable\":true,\"type\":\"string\"}},\"required\":[\"input\"],\"type\":\"object\"},"
    "\"OpenAICompatResponse\":{\"properties\":{\"data\":{\"items\":{\"$ref\":\"#/components/s"
    "chemas/OpenAICompatEmbedding\"},\"type\":\"array\"},\"model\":{\"type\":\"string\"},\"ob"
    "ject\":{\"type\":\"string\"},\"usage\":{\"$ref\":\"#/components/schemas/OpenAICompatUsag"
    "e\"}},\"required\":[\"object\",\"data\",\"model\",\"usage\"],\"type\":\"object\"},\"Open"
    "AICompatUsage\":{\"properties\":{\"prompt_tokens\":{\"minimum\":0,\"type\":\"integer\"},"
    "\"total_tokens\":{\"minimum\":0,\"type\":\"integer\"}},\"required\":[\"prompt_tokens\","
    "\"total_tokens\"],\"type\":\"object\"},\"OpenAIErrorResponse\":{\"properties\":{\"error"
    "\":{\"properties\":{\"code\":{\"type\":\"integer\"},\"message\":{\"type\":\"string\"},\""
    "param\":{\"nullable\":true,\"type\":\"string\"},\"type\":{\"type\":\"string\"}},\"requir"
    "ed\":[\"message\",\"type\",\"param\",\"code\"],\"type\":\"object\"}},\"required\":[\"err"
    "or\"],\"type\":\"object\"},\"PredictInput\":{\"oneOf\":[{\"type\":\"string\"},{\"items\""
    ":{\"type\":\"string\"},\"maxItems\":2,\"minItems\":2,\"type\":\"array\"},{\"items\":{\"o"
    "neOf\":[{\"items\":{\"type\":\"string\"},\"maxItems\":1,\"minItems\":1,\"type\":\"array"
    "\"},{\"items\":{\"type\":\"string\"},\"maxItems\":2,\"minItems\":2,\"type\":\"array\"}]}"
    ",\"type\":\"array\"}]},\"PredictRequest\":{\"properties\":{\"inputs\":{\"$ref\":\"#/comp"
    "onents/schemas/PredictInput\"},\"modality\":{\"allOf\":[{\"$ref\":\"#/components/schemas"
    "/Modality\"}],\"nullable\":true},\"raw_scores\":{\"default\":\"false\",\"type\":\"boolea"
    "n\"},\"truncate\":{\"default\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"trunc"
    "ation_direction\":{\"allOf\":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],"
    "\"default\":\"right\"}},\"required\":[\"inputs\"],\"type\":\"object\"},\"PredictResponse"
    "\":{\"oneOf\":[{\"items\":{\"$ref\":\"#/components/schemas/Prediction\"},\"type\":\"arra"
    "y\"},{\"items\":{\"items\":{\"$ref\":\"#/components/schemas/Prediction\"},\"type\":\"arr"
    "ay\"},\"type\":\"array\"}]},\"Prediction\":{\"properties\":{\"label\":{\"type\":\"string"
    "\"},\"score\":{\"format\":\"float\",\"type\":\"number\"}},\"required\":[\"score\",\"labe"
    "l\"],\"type\":\"object\"},\"Rank\":{\"properties\":{\"index\":{\"minimum\":0,\"type\":\""
    "integer\"},\"score\":{\"format\":\"float\",\"type\":\"number\"},\"text\":{\"default\":\""
    "null\",\"nullable\":true,\"type\":\"string\"}},\"required\":[\"index\",\"score\"],\"type"
    "\":\"object\"},\"RerankRequest\":{\"properties\":{\"query\":{\"type\":\"string\"},\"raw_"
    "scores\":{\"default\":\"false\",\"type\":\"boolean\"},\"return_text\":{\"default\":\"fal"
    "se\",\"type\":\"boolean\"},\"texts\":{\"items\":{\"type\":\"string\"},\"type\":\"array\""
    "},\"truncate\":{\"default\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"truncati"
    "on_direction\":{\"allOf\":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],\"de"
    "fault\":\"right\"}},\"required\":[\"query\",\"texts\"],\"type\":\"object\"},\"RerankResp"
    "onse\":{\"items\":{\"$ref\":\"#/components/schemas/Rank\"},\"type\":\"array\"},\"Similar"
    "ityInput\":{\"properties\":{\"sentences\":{\"items\":{\"type\":\"string\"},\"type\":\"ar"
    "ray\"},\"source_sentence\":{\"type\":\"string\"}},\"required\":[\"source_sentence\",\"se"
    "ntences\"],\"type\":\"object\"},\"SimilarityParameters\":{\"properties\":{\"prompt_name"
    "\":{\"default\":\"null\",\"nullable\":true,\"type\":\"string\"},\"truncate\":{\"default"
    "\":\"false\",\"nullable\":true,\"type\":\"boolean\"},\"truncation_direction\":{\"allOf\""
    ":[{\"$ref\":\"#/components/schemas/TruncationDirection\"}],\"default\":\"right\"}},\"typ"
    "e\":\"object\"},\"SimilarityRequest\":{\"properties\":{\"inputs\":{\"$ref\":\"#/componen"
    "ts/schemas/SimilarityInput\"},"
    "\"modality\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Modality\"}],\"nullable\":true},"
    "\"parameters\":{\"allOf\":[{\"$ref\":\"#/components/schema"
    "s/SimilarityParameters\"}],\"default\":\"null\",\"nullable\":true}},\"required\":[\"inpu"
    "ts\"],\"type\":\"object\"},\"SimilarityResponse\":{\"items\":{\"format\":\"float\",\"typ"
    "e\":\"number\"},\"type\":\"array\"},\"SimpleToken\":{\"properties\":{\"id\":{\"format\":"
    "\"int32\",\"minimum\":0,\"type\":\"integer\"},\"special\":{\"type\":\"boolean\"},\"start"
    "\":{\"minimum\":0,\"nullable\":true,\"type\":\"integer\"},\"stop\":{\"minimum\":0,\"null"
    "able\":true,\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},\"required\":[\"id\","
    "\"text\",\"special\"],\"type\":\"object\"},\"SparseValue\":{\"properties\":{\"index\":{"
    "\"minimum\":0,\"type\":\"integer\"},\"value\":{\"format\":\"float\",\"type\":\"number\"}"
    "},\"required\":[\"index\",\"value\"],\"type\":\"object\"},\"TokenizeInput\":{\"oneOf\":["
    "{\"type\":\"string\"},{\"items\":{\"type\":\"string\"},\"type\":\"array\"}]},\"TokenizeR"
    "equest\":{\"properties\":{\"add_special_tokens\":{\"default\":\"true\",\"type\":\"boolea"
    "n\"},\"inputs\":{\"$ref\":\"#/components/schemas/TokenizeInput\"},\"prompt_name\":{\"def"
    "ault\":\"null\",\"nullable\":true,\"type\":\"string\"}},\"required\":[\"inputs\"],\"type"
    "\":\"object\"},\"TokenizeResponse\":{\"items\":{\"items\":{\"$ref\":\"#/components/schem"
    "as/SimpleToken\"},\"type\":\"array\"},\"type\":\"array\"},\"TruncationDirection\":{\"enu"
    "m\":[\"Left\",\"Right\"],\"type\":\"string\"}}";

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

/* "Precision": the names of tf_precision, as the library has them. */
static void write_precision_schema(json_out *o)
{
    json_out_str(o, "\"Precision\":{\"enum\":[");
    for (int32_t p = 0; tf_precision_name(p); p++) {
        json_out_str(o, p ? "," : "");
        json_out_string(o, tf_precision_name(p));
    }
    json_out_str(o, "],\"type\":\"string\"}");
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
    json_out_raw(o, schemas, sizeof schemas - 2); /* all but its closing brace */
    json_out_str(o, ",");
    write_precision_schema(o);
    json_out_str(o, "}}}");
}
