/// The `/v1/notes` paths of the OpenAPI document.
extension OpenAPIDocument {
    static let notesPaths = #"""
            "/v1/notes": {"get": {"operationId": "listNotes", "tags": ["notes"], "summary": "Live notes (metadata, no content), ordered by path, paged.",
              "parameters": [{"$ref": "#/components/parameters/ListLimit"}, {"$ref": "#/components/parameters/After"}, {"$ref": "#/components/parameters/PathFilter"}],
              "responses": {
                "200": {"description": "One page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NoteListPage"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "413": {"$ref": "#/components/responses/BodyTooLarge"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/notes/{id}": {
              "parameters": [{"$ref": "#/components/parameters/NoteId"}],
              "get": {"operationId": "getNote", "tags": ["notes"], "summary": "The note with its content; `Accept: text/markdown` gives the raw bytes instead.",
                "parameters": [{"$ref": "#/components/parameters/IfNoneMatchRead"}],
                "responses": {
                  "200": {"description": "The live note.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Note"}},
                    "text/markdown": {"schema": {"type": "string", "description": "The content's bytes exactly as stored."}}}},
                  "304": {"description": "Not modified: `If-None-Match` matched.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"description": "No such note (`not_found`) or it was deleted (`note_deleted`).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "413": {"$ref": "#/components/responses/BodyTooLarge"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}},
              "put": {"operationId": "putNote", "tags": ["notes"], "summary": "Create (`If-None-Match: *`) or update (`If-Match`) a note's content and/or path.",
                "description": "A rename keeps the id and the history. Re-creating a deleted id with `If-None-Match: *` is allowed. A retried identical create answers 200 with the same rev.",
                "parameters": [{"$ref": "#/components/parameters/IfMatch"}, {"$ref": "#/components/parameters/IfNoneMatchCreate"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PutNoteRequest"}}}},
                "responses": {
                  "200": {"description": "Updated (or an identical retry); the answer has no content.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}},
                  "201": {"description": "Created; the answer has no content.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "412": {"$ref": "#/components/responses/PreconditionFailed"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"},
                  "428": {"$ref": "#/components/responses/PreconditionRequired"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}},
              "delete": {"operationId": "deleteNote", "tags": ["notes"], "summary": "Delete: the note becomes a tombstone in the changes feed until purged.",
                "parameters": [{"$ref": "#/components/parameters/IfMatchDelete"}],
                "responses": {
                  "200": {"description": "The tombstone (`deleted: true`); deleting a tombstone again at its rev is a no-op.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "412": {"$ref": "#/components/responses/PreconditionFailed"},
                  "428": {"$ref": "#/components/responses/PreconditionRequired"},
                  "413": {"$ref": "#/components/responses/BodyTooLarge"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/notes/{id}/html": {
              "parameters": [{"$ref": "#/components/parameters/NoteId"}],
              "get": {"operationId": "getNoteHTML", "tags": ["notes"], "summary": "The note rendered by cmark: raw HTML omitted, unsafe link schemes emptied.",
                "parameters": [{"$ref": "#/components/parameters/Standalone"}],
                "responses": {
                  "200": {"description": "An HTML fragment, or a full page with `standalone=1`; sent with a restrictive Content-Security-Policy.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"text/html": {"schema": {"type": "string"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/BodyTooLarge"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/notes/{id}/revisions": {
              "parameters": [{"$ref": "#/components/parameters/NoteId"}],
              "get": {"operationId": "listRevisions", "tags": ["notes"], "summary": "The note's history, newest first, without content.",
                "responses": {
                  "200": {"description": "The revisions.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RevisionList"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/BodyTooLarge"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/notes/{id}/revisions/{rev}": {
              "parameters": [{"$ref": "#/components/parameters/NoteId"}, {"$ref": "#/components/parameters/Rev"}],
              "get": {"operationId": "getRevision", "tags": ["notes"], "summary": "One revision with its content: a merge base for sync.",
                "responses": {
                  "200": {"description": "The revision.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Revision"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/BodyTooLarge"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}}
        """#

    static let syncPaths = #"""
            "/v1/changes": {"get": {"operationId": "listChanges", "tags": ["sync"], "summary": "Every note changed after the cursor, tombstones included, in rev order, each note once at its latest state.",
              "parameters": [{"$ref": "#/components/parameters/Since"}, {"$ref": "#/components/parameters/ChangesLimit"}, {"$ref": "#/components/parameters/Include"}],
              "responses": {
                "200": {"description": "One page of changes.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChangesPage"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "410": {"description": "`resync_required`: deletions after this cursor were already purged (or the cursor is ahead of the account, as after restoring a backup); read again from `since=0`, treating notes missing from that walk as deleted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "413": {"$ref": "#/components/responses/BodyTooLarge"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/batch": {"post": {"operationId": "batch", "tags": ["sync"], "summary": "Many writes in one transaction, each with its own precondition and its own status.",
              "description": "An operation that fails (precondition, path, size) fails alone; the others still apply. The answer is 200 whenever the batch itself was valid.",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}},
              "responses": {
                "200": {"description": "One result per operation, in order.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchResponse"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "403": {"$ref": "#/components/responses/Forbidden"},
                "413": {"$ref": "#/components/responses/PayloadTooLarge"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/search": {"get": {"operationId": "search", "tags": ["search"], "summary": "Full-text search over the caller's live notes, with snippets.",
              "parameters": [{"$ref": "#/components/parameters/Query"}, {"$ref": "#/components/parameters/SearchLimit"}],
              "responses": {
                "200": {"description": "Matches, best first.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchResults"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "413": {"$ref": "#/components/responses/BodyTooLarge"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}}
        """#
}
