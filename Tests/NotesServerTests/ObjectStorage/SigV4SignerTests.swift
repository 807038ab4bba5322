import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// The examples of AWS's "Authenticating Requests: Using the Authorization Header (AWS
/// Signature Version 4)" for Amazon S3, signed with its example key on 2013-05-24.
@Suite("SigV4 signatures")
struct SigV4SignerTests {
    static let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                                               secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                                    region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = ("Host", "examplebucket.s3.amazonaws.com")
    static let empty = S3Bucket.emptyPayloadHash

    @Test("GET Object with a Range header signs as AWS's example: canonical request, string to sign and signature")
    func getObject() {
        let signed = Self.signer.sign(method: "GET", path: "/test.txt", query: [],
                                      headers: [Self.host, ("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.empty),
                                                ("x-amz-date", "20130524T000000Z")],
                                      payloadHash: Self.empty, date: Self.date)
        #expect(signed.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:\(Self.empty)
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            \(Self.empty)
            """)
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("PUT Object with a body, a Date and a storage-class header signs as AWS's example (an escaped key)")
    func putObject() {
        let payload = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        #expect(SHA256.hex(of: "Welcome to Amazon S3.") == payload)
        let signed = Self.signer.sign(method: "PUT", path: "/" + SigV4Signer.encode("test$file.text"), query: [],
                                      headers: [Self.host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                                                ("x-amz-content-sha256", payload), ("x-amz-date", "20130524T000000Z"),
                                                ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
                                      payloadHash: payload, date: Self.date)
        #expect(signed.canonicalRequest.hasPrefix("PUT\n/test%24file.text\n\n"))
        #expect(signed.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("GET Bucket Lifecycle (a query parameter without a value) and GET Bucket (List Objects, sorted parameters) sign as AWS's examples")
    func bucketRequests() {
        let headers = [Self.host, ("x-amz-content-sha256", Self.empty), ("x-amz-date", "20130524T000000Z")]
        let lifecycle = Self.signer.sign(method: "GET", path: "/", query: [("lifecycle", "")], headers: headers,
                                         payloadHash: Self.empty, date: Self.date)
        #expect(lifecycle.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        let list = Self.signer.sign(method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: headers,
                                    payloadHash: Self.empty, date: Self.date)
        #expect(list.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "max-keys=2&prefix=J")
        #expect(list.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test("a different secret gives a different signature, and the credentials never print their secret")
    func secretMatters() {
        let other = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "another-secret"),
                                region: "us-east-1")
        let headers = [Self.host, ("x-amz-content-sha256", Self.empty), ("x-amz-date", "20130524T000000Z")]
        #expect(other.sign(method: "GET", path: "/", query: [], headers: headers, payloadHash: Self.empty, date: Self.date).signature
                != Self.signer.sign(method: "GET", path: "/", query: [], headers: headers, payloadHash: Self.empty, date: Self.date).signature)
        #expect(!"\(Self.signer.credentials)".contains("wJalrXUtnFEMI"))
        #expect(!String(reflecting: Self.signer.credentials).contains("wJalrXUtnFEMI"))
    }
}
