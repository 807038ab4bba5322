import Testing
@testable import NotesServer

/// Reading S3's answers: the listing's keys, sizes and continuation, an upload's id, a copied
/// part's ETag and an error's code, as SeaweedFS and AWS write them (a default namespace,
/// escaped text), through the server's XML reader.
@Suite("S3 answers' XML")
struct S3XMLTests {
    static let listing = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>notes</Name><Prefix>p/</Prefix>\
        <IsTruncated>true</IsTruncated><NextContinuationToken>a&amp;b=</NextContinuationToken>
          <Contents><Key>p/1/ab/abc</Key><LastModified>2026-12-07T10:00:00.000Z</LastModified><Size>12</Size></Contents>
          <Contents><Key>p/1/uploads/a&lt;b&gt; &#x263A;/1</Key><Size>3</Size><ETag>&quot;e&quot;</ETag></Contents>
        </ListBucketResult>
        """

    @Test("a listing's blocks give each object's key and size, references decoded, and the continuation token")
    func listingRead() {
        let blocks = S3XML.blocks(of: "Contents", in: Self.listing)
        #expect(blocks.count == 2)
        #expect(blocks.map { S3XML.value(of: "Key", in: $0) } == ["p/1/ab/abc", "p/1/uploads/a<b> ☺/1"])
        #expect(blocks.map { S3XML.value(of: "Size", in: $0) } == ["12", "3"])
        #expect(S3XML.value(of: "ETag", in: blocks[1]) == "\"e\"")
        #expect(S3XML.value(of: "LastModified", in: blocks[1]) == nil)
        #expect(S3XML.value(of: "IsTruncated", in: Self.listing) == "true")
        #expect(S3XML.value(of: "NextContinuationToken", in: Self.listing) == "a&b=")
        #expect(S3XML.values(of: "Key", in: Self.listing).count == 2)
    }

    @Test("an upload's id, a copied part's ETag and an error's code are read from their answers")
    func singleValuesRead() {
        let created = #"<?xml version="1.0"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
            + "<Bucket>b</Bucket><Key>k</Key><UploadId>VXBsb2Fk</UploadId></InitiateMultipartUploadResult>"
        #expect(S3XML.value(of: "UploadId", in: created) == "VXBsb2Fk")
        let copied = "<CopyPartResult><LastModified>2026-12-07T10:00:00Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag></CopyPartResult>"
        #expect(S3XML.value(of: "ETag", in: copied) == "\"9b2cf535f27731c974343645a3985328\"")
        let error = "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>"
        #expect(S3XML.value(of: "Code", in: error) == "NoSuchKey")
        #expect(S3XML.value(of: "Code", in: created) == nil)
    }

    @Test("an answer that is not XML, or carries a DTD, holds no values", arguments: [
        "", "Service Unavailable", "<Error><Code>SlowDown</Code>", "<Error><Code>A</Code></Error><Error/>",
        #"<!DOCTYPE Error [<!ENTITY x SYSTEM "file:///etc/passwd">]><Error><Code>&x;</Code></Error>"#,
    ])
    func malformedAnswersHoldNothing(answer: String) {
        #expect(S3XML.value(of: "Code", in: answer) == nil)
        #expect(S3XML.blocks(of: "Error", in: answer).isEmpty)
    }

    @Test("escaped text is read back as it was written")
    func escapeRoundTrips() {
        let text = #"a & b < c > d " e"#
        #expect(S3XML.value(of: "ETag", in: "<Part><ETag>" + S3XML.escape(text) + "</ETag></Part>") == text)
    }
}
