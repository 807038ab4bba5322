import NotesCore

/// The schemas of the OpenAPI document. Each wire type's is made from its `WireShape`, the
/// description its hand-written JSON writer and reader walk too, so a field is documented where
/// it is defined; the one answer that is not a wire type (`Health`) is written here.
///
/// Optional fields are not `required`; answers leave them out when absent.
extension OpenAPIDocument {
    /// The wire types the document describes, in its order.
    static let wireTypes: [any WireDescribed.Type] = [
        APIErrorBody.self, APIErrorBody.Detail.self, StaleNoteBody.self, ServerLimits.self,
        LoginRequest.self, RefreshRequest.self, TokenResponse.self, UserResource.self,
        CreateTokenRequest.self, PersonalTokenResource.self, PersonalTokenList.self,
        NoteResource.self, NoteMetadata.self, PutNoteRequest.self, NoteListPage.self, ChangesPage.self, RevisionResource.self, RevisionList.self,
        SearchResults.Hit.self, SearchHighlight.self, SearchResults.self,
        BatchOperation.self, BatchRequest.self, BatchResult.self, BatchResponse.self,
        TrashEntry.self, TrashPage.self, PurgeResult.self,
        CreatePublicationRequest.self, PublicationResource.self, PublicationList.self,
        SignInProvidersResponse.self, TokenGrantRequest.self, DeviceTokenRequest.self,
        DeviceAuthorizationRequest.self, DeviceAuthorizationResponse.self,
        ContentMissingRequest.self, ContentMissingResponse.self, UploadRequest.self, UploadState.self,
        ContentBatchResponse.self, ContentBatchResult.self, StoredContent.self,
        SpaceResource.self, SpaceList.self, SpaceNameRequest.self, SpaceMemberResource.self, SpaceMemberList.self, SpaceMemberRequest.self,
    ]

    static let schemas: OpenAPIValue = .object(
        [
            ("Health", [
                "type": "object",
                "required": ["status", "version"],
                "properties": ["status": ["type": "string", "enum": ["ok"]], "version": ["type": "string"],
                               "content_store": ["type": "string", "enum": ["ok", "unreachable"],
                                                 "description": "Whether the attachment store answers (an S3 store is asked at most every 5 seconds)."]],
            ]),
            ("Probe", [
                "type": "object",
                "required": ["status"],
                "properties": ["status": ["type": "string", "enum": ["live", "ready"]]],
            ]),
            ("TokenScope", TokenScope.enumerationSchema),
            ("SpaceRole", SpaceRole.enumerationSchema),
        ] + wireTypes.map { component($0) }
    )

    /// The component schema of a wire type, under its name.
    private static func component<Wire: WireDescribed>(_ type: Wire.Type) -> (key: String, value: OpenAPIValue) {
        (Wire.wireShape.name, Wire.wireShape.openAPISchema)
    }
}
