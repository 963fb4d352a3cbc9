import { UploadRequestSchema, UploadSchema } from "@caption/shared/api/upload";
import { bearer, error, json, needs, plain, retryAfter } from "./openapi-parts.ts";

// The upload paths (issue 23): creating an upload with an API key, and its tus URL, which needs none.

export const uploadSchemas = () => ({ UploadRequest: plain(UploadRequestSchema), Upload: plain(UploadSchema) });

const tusHeader = (name: string, description: string, required = true) => ({ name, in: "header", required, description, schema: { type: "string" } });
const signedQuery = [
  { name: "expires", in: "query", required: true, description: "Unix time the upload URL stops taking bytes", schema: { type: "string" } },
  { name: "signature", in: "query", required: true, description: "HMAC of the upload and expiry", schema: { type: "string" } },
];
const uploadIdParam = { name: "id", in: "path", required: true, description: "The upload's id (upl_…)", schema: { type: "string" } };
const tusResumable = tusHeader("Tus-Resumable", "1.0.0");
const offsetHeaders = {
  "Upload-Offset": { schema: { type: "integer" }, description: "Bytes stored" },
  "Tus-Resumable": { schema: { type: "string" }, description: "1.0.0" },
};
const tusRefusals = {
  "404": error("Wrong or missing signature, unknown upload (NOT_FOUND)"),
  "410": error("The upload URL expired with the upload unfinished, or the upload was deleted (UPLOAD_EXPIRED)"),
  "412": error("Tus-Resumable missing (INVALID_REQUEST)"),
  "503": { description: "Storage refused the bytes or the upload's lock was busy (SERVICE_UNAVAILABLE); the offset stays what storage holds", headers: retryAfter, ...json("Error") },
};
const octets = { required: true, content: { "application/offset+octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } };

export function uploadPaths() {
  return {
    "/v1/uploads": {
      post: {
        operationId: "createUpload",
        tags: ["Uploads"],
        summary: "Create an upload for a file on your own disk",
        description: `Answers with a signed tus 1.0 upload URL valid for one hour; once every byte is in, submit the id as upload_id. At most 10 unfinished uploads per account. ${needs("subtitles:write")}`,
        ...bearer("subtitles:write"),
        requestBody: { required: true, ...json("UploadRequest") },
        responses: {
          "201": { description: "The upload and its URL", headers: { Location: { schema: { type: "string" }, description: "upload_url" } }, ...json("Upload") },
          "400": error("Invalid request (INVALID_REQUEST)"),
          "401": error("Missing or invalid API key (UNAUTHORIZED, INSUFFICIENT_SCOPE)"),
          "413": error("size_bytes over 500 MiB (VIDEO_TOO_LARGE)"),
          "429": { description: "RATE_LIMITED, or UPLOAD_LIMIT_EXCEEDED: 10 unfinished uploads already", headers: retryAfter, ...json("Error") },
          "503": { description: "SERVICE_UNAVAILABLE", headers: retryAfter, ...json("Error") },
        },
      },
    },
    "/v1/uploads/{id}": {
      head: {
        operationId: "getUploadOffset",
        tags: ["Uploads"],
        summary: "tus: how many bytes are stored",
        description: "Upload-Offset is what storage holds: resume from it after a dropped connection. A finished upload answers even after its URL's hour. No API key: the URL's signature.",
        security: [],
        parameters: [uploadIdParam, ...signedQuery, tusResumable],
        responses: {
          "200": { description: "Upload-Offset and Upload-Length", headers: { ...offsetHeaders, "Upload-Length": { schema: { type: "integer" }, description: "size_bytes" } } },
          ...tusRefusals,
        },
      },
      patch: {
        operationId: "appendUploadBytes",
        tags: ["Uploads"],
        summary: "tus: append bytes at the stored offset",
        description: "Streams the body to storage. Two clients at one offset: one wins, the other gets 409. The last byte finishes the upload: submit its id as upload_id.",
        security: [],
        parameters: [uploadIdParam, ...signedQuery, tusResumable, tusHeader("Upload-Offset", "The stored offset (HEAD)")],
        requestBody: octets,
        responses: {
          "204": { description: "Stored; Upload-Offset is the new offset", headers: offsetHeaders },
          "409": error("Upload-Offset is not the stored offset (UPLOAD_OFFSET_CONFLICT)"),
          "413": error("More bytes than size_bytes (PAYLOAD_TOO_LARGE); the upload stays unfinished"),
          ...tusRefusals,
        },
      },
      put: {
        operationId: "putUploadBytes",
        tags: ["Uploads"],
        summary: "The whole file in one request (for curl); a tus PATCH at offset 0",
        description: "For clients without tus: curl -X PUT --data-binary @file.mp4 '<upload_url>'. Refused once some bytes are in.",
        security: [],
        parameters: [uploadIdParam, ...signedQuery],
        requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
        responses: {
          "204": { description: "Stored", headers: offsetHeaders },
          "409": error("Some bytes are already in: resume with tus (UPLOAD_OFFSET_CONFLICT)"),
          "413": error("More bytes than size_bytes (PAYLOAD_TOO_LARGE)"),
          ...tusRefusals,
        },
      },
      delete: {
        operationId: "deleteUpload",
        tags: ["Uploads"],
        summary: "tus termination: delete an unfinished upload",
        description: "Deletes the bytes at once; the upload no longer counts against the account's 10 unfinished ones.",
        security: [],
        parameters: [uploadIdParam, ...signedQuery, tusResumable],
        responses: { "204": { description: "Deleted" }, "400": error("The upload is finished (INVALID_REQUEST)"), ...tusRefusals },
      },
      options: {
        operationId: "uploadCapabilities",
        tags: ["Uploads"],
        summary: "tus discovery: version, extensions, largest size",
        description: "Needs neither key nor signature.",
        security: [],
        parameters: [uploadIdParam],
        responses: {
          "204": {
            description: "What the tus server supports",
            headers: {
              "Tus-Version": { schema: { type: "string" }, description: "1.0.0" },
              "Tus-Extension": { schema: { type: "string" }, description: "creation, termination, expiration, …" },
              "Tus-Max-Size": { schema: { type: "integer" }, description: "524288000" },
            },
          },
        },
      },
    },
  };
}

