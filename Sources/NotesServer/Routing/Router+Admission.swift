/// Which bodies the router lets the server read, decided from the request's head alone.
///
/// Why: a body read in full (up to `max_request_bytes`) before routing and authentication
/// would let anyone make the server hold memory without a token. So a body is read only for a route that exists and takes the method; for a route without a token (sign-in,
/// refresh) only up to `openBodyLimit`; and for any other route only once the bearer token in the
/// headers has been checked (the same check the route itself runs again on the complete request).
extension Router {
    /// A few KiB: a sign-in or refresh body is a username, a password (at most 1,024 bytes), a
    /// device name or a refresh token.
    static let defaultOpenBodyLimit = 8 * 1024

    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        do {
            let (route, parameters) = try route(method: head.method, path: head.path)
            guard let principal = try route.caller(of: head, parameters: parameters, authenticator: authenticator, spaces: spaces) else {
                return .accept(maxBytes: openBodyLimit)
            }
            if let makeSink = route.bodySink {
                let streamed = try makeSink(RequestContext(request: head, parameters: parameters, principal: principal))
                return .stream(streamed.sink, maxBytes: streamed.maxBytes)
            }
            return .accept(maxBytes: .max)
        } catch let error as HTTPError {
            return .refuse(error)
        } catch let error as any HTTPAnswerable {
            return .refuse(error.httpError)
        } catch {
            log("req=\(head.id) internal error while checking a request's head: \(error)")
            return .refuse(.internal)
        }
    }
}
