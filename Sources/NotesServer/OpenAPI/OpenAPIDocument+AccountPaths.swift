/// The meta, sign-in and personal-token paths of the OpenAPI document.
extension OpenAPIDocument {
    static let metaAndAuthPaths = #"""
            "/healthz": {"get": {"operationId": "health", "tags": ["meta"], "summary": "Liveness and version.", "security": [],
              "responses": {
                "200": {"description": "The server is up.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/limits": {"get": {"operationId": "getLimits", "tags": ["meta"], "summary": "The limits the server enforces, so clients can split work to fit.", "security": [],
              "responses": {
                "200": {"description": "The limits.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ServerLimits"}}}},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/openapi.json": {"get": {"operationId": "getOpenAPI", "tags": ["meta"], "summary": "This document.", "security": [],
              "responses": {
                "200": {"description": "The OpenAPI 3.0.3 document.", "content": {"application/json": {"schema": {"type": "object"}}}},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/auth/login": {"post": {"operationId": "login", "tags": ["auth"], "summary": "Sign in: a new session with an access and a refresh token.", "security": [],
              "description": "Unknown users, wrong passwords and disabled accounts get the same answer after the same work.",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LoginRequest"}}}},
              "responses": {
                "200": {"description": "Signed in.", "headers": {"Cache-Control": {"$ref": "#/components/headers/CacheControl"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TokenResponse"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"description": "`invalid_credentials`: the username or password is wrong.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "429": {"description": "Too many failed sign-ins: wait before trying again.", "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "503": {"description": "`busy`: too many sign-ins are being checked at once.", "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/auth/refresh": {"post": {"operationId": "refresh", "tags": ["auth"], "summary": "Rotate: a new access token and a new refresh token; the old refresh token is spent.", "security": [],
              "description": "Presenting a spent refresh token (beyond a short grace for the immediately previous one) revokes the whole session.",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RefreshRequest"}}}},
              "responses": {
                "200": {"description": "New tokens.", "headers": {"Cache-Control": {"$ref": "#/components/headers/CacheControl"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TokenResponse"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"description": "`invalid_grant`: the refresh token is unknown, spent, expired or its session revoked; sign in again.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/auth/logout": {"post": {"operationId": "logout", "tags": ["auth"], "summary": "Sign out: revoke the caller's session, its refresh token and its access tokens.",
              "responses": {
                "204": {"description": "Signed out."},
                "400": {"description": "`not_a_session`: personal tokens are revoked with `DELETE /v1/tokens/{id}`.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/me": {"get": {"operationId": "me", "tags": ["auth"], "summary": "The signed-in user.",
              "responses": {
                "200": {"description": "The user.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "429": {"$ref": "#/components/responses/TooManyRequests"},
                "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/tokens": {
              "get": {"operationId": "listTokens", "tags": ["tokens"], "summary": "The caller's personal access tokens, never their secrets.",
                "responses": {
                  "200": {"description": "The tokens.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PersonalTokenList"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}},
              "post": {"operationId": "createToken", "tags": ["tokens"], "summary": "Create a personal access token; its secret is shown in this answer only.",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateTokenRequest"}}}},
                "responses": {
                  "201": {"description": "Created; `token` holds the secret.", "headers": {"Cache-Control": {"$ref": "#/components/headers/CacheControl"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PersonalToken"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}},
            "/v1/tokens/{id}": {
              "parameters": [{"$ref": "#/components/parameters/TokenId"}],
              "delete": {"operationId": "revokeToken", "tags": ["tokens"], "summary": "Revoke a personal access token.",
                "responses": {
                  "204": {"description": "Revoked."},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"description": "The caller has no token with this id.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "429": {"$ref": "#/components/responses/TooManyRequests"},
                  "default": {"$ref": "#/components/responses/Error"}}}}
        """#
}
