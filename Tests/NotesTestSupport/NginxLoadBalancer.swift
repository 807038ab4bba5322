import Foundation

/// A real nginx (Debian's `nginx-light`) in front of several `notes-server` processes, round
/// robin, on a free loopback port: the load balancer of the load-balanced deployment test.
///
/// Everything nginx writes (its configuration, pid file, logs, request-body and proxy buffers) is
/// in a temporary folder of its own, and it runs in the foreground (`daemon off`) as a
/// `ChildProcess`, so no root is needed and nothing outlives the test: `stop()` ends it.
///
/// Which requests move to the other server when one is down (`proxy_next_upstream`): a request
/// whose connection failed or timed out before anything was sent (a killed server refuses the
/// connection), and for idempotent methods also a 502/503/504 answer. A non-idempotent request
/// (POST) that reached a server is never sent again by nginx (it may have been applied): the
/// client answers the 502 itself, retrying the POSTs it knows are safe (`/v1/batch` carries
/// preconditions) and reporting the others.
public final class NginxLoadBalancer: Sendable {
    /// The port nginx listens on (127.0.0.1).
    public let port: Int
    public let directory: TemporaryDirectory
    private let process: ChildProcess

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The answer header naming the server that answered (`$upstream_addr`; two addresses
    /// when the first failed and nginx went on to the next).
    public static let upstreamHeader = "X-Notes-Upstream"

    /// Debian's nginx.
    public static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

    /// Whether nginx is installed (`scripts/install-deps --for-tests` installs `nginx-light`).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    /// Starts nginx before `upstreams` (loopback ports) on a free port, trying another port when
    /// the one picked was taken meanwhile by another test.
    /// - Throws: `NginxError` when nginx exits for another reason, or does not start in time.
    public init(upstreams: [Int], attempts: Int = 5) async throws {
        precondition(!upstreams.isEmpty, "a load balancer needs a server behind it")
        (process, port, directory) = try await Self.startOnFreePort(upstreams: upstreams, attempts: attempts)
    }

    /// Starts nginx on a port that was free a moment ago, and on another when nginx found it
    /// taken meanwhile (another test's server took it), up to `attempts` times.
    private static func startOnFreePort(upstreams: [Int], attempts: Int) async throws -> (ChildProcess, Int, TemporaryDirectory) {
        var lastError = NginxError.portTaken(0)
        for _ in 0..<attempts {
            let directory = try TemporaryDirectory("notes-nginx")
            let port = try ClosedPort().port
            do {
                return (try await start(in: directory, port: port, upstreams: upstreams), port, directory)
            } catch let error as NginxError {
                directory.remove()
                guard case .portTaken = error else { throw error }
                lastError = error
            } catch {
                directory.remove()
                throw error
            }
        }
        throw lastError
    }

    /// Writes the configuration and starts nginx; returns once it listens (its pid file, which
    /// nginx writes after binding, exists) or throws what its error log says.
    private static func start(in directory: TemporaryDirectory, port: Int, upstreams: [Int]) async throws -> ChildProcess {
        let configuration = directory.appending("nginx.conf")
        try Self.configuration(directory: directory.path, port: port, upstreams: upstreams)
            .write(to: configuration, atomically: true, encoding: .utf8)
        let errorLog = directory.appending("error.log").path
        // -p: relative paths under the folder; -e: the error log from the start, before the
        // configuration is read (else nginx first tries /var/log/nginx/error.log).
        let process = try ChildProcess(executable, ["-p", directory.path, "-e", errorLog, "-c", configuration.path],
                                       environment: ["PATH": "/usr/sbin:/usr/bin:/bin"])
        let pidFile = directory.appending("nginx.pid").path
        let started = try await waitUntil(timeout: 30) {
            process.hasExited || FileManager.default.fileExists(atPath: pidFile)
        }
        let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        guard started, !process.hasExited else {
            process.send(SIGKILL)
            await process.wait()
            if log.contains("Address already in use") { throw NginxError.portTaken(port) }
            throw NginxError.didNotStart(log)
        }
        return process
    }

    /// The whole configuration: one `http` server proxying to the upstreams in turn.
    static func configuration(directory: String, port: Int, upstreams: [Int]) -> String {
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=30s;" }.joined(separator: "\n")
        return """
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log info;
            events { worker_connections 512; }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                # Attachments arrive in chunks below the server's request limit.
                client_max_body_size 64m;
                upstream notes {
            \(servers)
                    keepalive 8;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://notes;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        # Long polls wait up to a minute on the server.
                        proxy_read_timeout 120s;
                        proxy_connect_timeout 2s;
                        # A refused connection or timeout moves any request on (nothing was sent);
                        # 502/503/504 move idempotent ones only: nginx never repeats a POST that
                        # reached a server.
                        proxy_next_upstream error timeout http_502 http_503 http_504;
                        proxy_next_upstream_tries 2;
                        add_header \(upstreamHeader) $upstream_addr always;
                    }
                }
            }

            """
    }

    /// nginx's error log so far (upstream failures are logged there).
    public var errorLog: String {
        (try? String(contentsOfFile: directory.appending("error.log").path, encoding: .utf8)) ?? ""
    }

    /// Stops nginx at once (SIGTERM: fast shutdown), waits for it, and removes its folder.
    public func stop() async {
        process.terminate()
        if await process.wait(timeout: .seconds(10)) == nil {
            process.send(SIGKILL)
            await process.wait()
        }
        directory.remove()
    }
}

public enum NginxError: Error, CustomStringConvertible {
    /// The port picked was taken before nginx could bind it.
    case portTaken(Int)
    /// nginx exited, or did not listen in time; its error log.
    case didNotStart(String)

    public var description: String {
        switch self {
        case .portTaken(let port): "nginx could not bind 127.0.0.1:\(port): taken"
        case .didNotStart(let log): "nginx did not start: \(log)"
        }
    }
}
