// Notes web app: the upload form sends a file in chunks, through the same resumable, verified
// upload `notes sync` uses (see ChunkedUploadRoutes.swift), so a file may be as large as the
// server's attachment limit and not only as large as one request. Without this script the form
// posts the file whole.
//
// Memory stays bounded by one chunk: the file is read a chunk at a time, twice (first to hash the
// whole, which opening the upload needs, then to send each chunk with its own SHA-256). SHA-256 is
// computed here rather than with crypto.subtle, which hashes only whole buffers and exists only on
// HTTPS pages.
(function () {
  "use strict";

  // --- SHA-256 (FIPS 180-4), incremental ------------------------------------------------------
  var K = new Int32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ]);

  function Sha256() {
    this.h = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    this.w = new Int32Array(64);
    this.block = new Uint8Array(64);
    this.filled = 0;
    this.length = 0;
  }

  // Compresses the 64-byte blocks of `bytes` from `offset`, as many as there are whole.
  Sha256.prototype.blocks = function (bytes, offset, end) {
    var w = this.w, h = this.h;
    var h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7];
    while (offset + 64 <= end) {
      for (var i = 0; i < 16; i++) {
        var p = offset + i * 4;
        w[i] = (bytes[p] << 24) | (bytes[p + 1] << 16) | (bytes[p + 2] << 8) | bytes[p + 3];
      }
      for (i = 16; i < 64; i++) {
        var a15 = w[i - 15], a2 = w[i - 2];
        var s0 = ((a15 >>> 7) | (a15 << 25)) ^ ((a15 >>> 18) | (a15 << 14)) ^ (a15 >>> 3);
        var s1 = ((a2 >>> 17) | (a2 << 15)) ^ ((a2 >>> 19) | (a2 << 13)) ^ (a2 >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7;
      for (i = 0; i < 64; i++) {
        var t1 = (hh + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
                  ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        var t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
                  ((a & b) ^ (a & c) ^ (b & c))) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + hh) | 0;
      offset += 64;
    }
    h[0] = h0; h[1] = h1; h[2] = h2; h[3] = h3; h[4] = h4; h[5] = h5; h[6] = h6; h[7] = h7;
    return offset;
  };

  Sha256.prototype.update = function (bytes) {
    var offset = 0, end = bytes.length;
    this.length += end;
    if (this.filled > 0) {
      var take = Math.min(64 - this.filled, end);
      this.block.set(bytes.subarray(0, take), this.filled);
      this.filled += take;
      offset = take;
      if (this.filled < 64) return this;
      this.blocks(this.block, 0, 64);
      this.filled = 0;
    }
    offset = this.blocks(bytes, offset, end);
    if (offset < end) {
      this.block.set(bytes.subarray(offset, end), 0);
      this.filled = end - offset;
    }
    return this;
  };

  // The 32-byte digest; the hasher is spent.
  Sha256.prototype.digest = function () {
    var bits = this.length * 8;
    var tail = new Uint8Array(this.filled < 56 ? 64 : 128);
    tail.set(this.block.subarray(0, this.filled), 0);
    tail[this.filled] = 0x80;
    var n = tail.length;
    var high = Math.floor(bits / 0x100000000), low = bits >>> 0;
    tail[n - 8] = high >>> 24; tail[n - 7] = high >>> 16; tail[n - 6] = high >>> 8; tail[n - 5] = high;
    tail[n - 4] = low >>> 24; tail[n - 3] = low >>> 16; tail[n - 2] = low >>> 8; tail[n - 1] = low;
    this.blocks(tail, 0, n);
    var out = new Uint8Array(32);
    for (var i = 0; i < 8; i++) {
      out[i * 4] = this.h[i] >>> 24; out[i * 4 + 1] = this.h[i] >>> 16; out[i * 4 + 2] = this.h[i] >>> 8; out[i * 4 + 3] = this.h[i];
    }
    return out;
  };

  function hex(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return text;
  }

  function base64(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text);
  }

  // --- the upload ---------------------------------------------------------------------------
  var form = document.querySelector("form.upload[data-chunked-max]");
  // The form's own address (`/upload`, or `/s/<space id>/upload` in a shared space): the chunks
  // go to the space the form uploads to.
  var uploads = form ? form.getAttribute("action") : "/upload";
  if (!form || !window.fetch || !window.Blob || !Blob.prototype.arrayBuffer) return;
  var input = form.querySelector("input[type=file]");
  var folder = form.querySelector("input[name=folder]");
  var token = form.querySelector("input[name=csrf]");
  var button = form.querySelector("button[type=submit]");
  var status = document.getElementById("upload-status");
  var bar = status.querySelector("progress");
  var words = status.querySelector("span");
  var limit = Number(form.getAttribute("data-chunked-max"));
  // Pieces the file is read in while hashing it whole.
  var readBytes = 8 * 1024 * 1024;

  function size(bytes) {
    return bytes < 1024 ? bytes + " B" : bytes < 1048576 ? Math.floor(bytes / 1024) + " KB" : Math.floor(bytes / 1048576) + " MB";
  }

  function show(text, done, total, failed) {
    status.hidden = false;
    status.classList.toggle("error", !!failed);
    bar.hidden = !!failed;
    bar.max = total || 1;
    bar.value = done || 0;
    words.textContent = text;
  }

  // Thrown with the sentence to show.
  function Refusal(message) { this.message = message; }

  function refusal(response) {
    return response.json().then(function (body) {
      throw new Refusal(body && body.error && body.error.message ? body.error.message : "The upload was refused (" + response.status + ").");
    }, function () {
      throw new Refusal("The upload was refused (" + response.status + "). Reload the page and try again.");
    });
  }

  function post(url, fields) {
    var body = new URLSearchParams();
    body.set("csrf", token.value);
    body.set("folder", folder ? folder.value : "");
    Object.keys(fields).forEach(function (name) { body.set(name, fields[name]); });
    return fetch(url, { method: "POST", credentials: "same-origin", body: body,
                        headers: { "Content-Type": "application/x-www-form-urlencoded" } })
      .then(function (response) { return response.ok && !response.redirected ? response.json() : refusal(response); });
  }

  function hashWhole(file) {
    var hasher = new Sha256();
    var step = function (offset) {
      show("Checking " + file.name + "…", offset, file.size);
      if (offset >= file.size) return Promise.resolve(hex(hasher.digest()));
      var end = Math.min(offset + readBytes, file.size);
      return file.slice(offset, end).arrayBuffer().then(function (buffer) {
        hasher.update(new Uint8Array(buffer));
        return step(end);
      });
    };
    return step(0);
  }

  // Sends one chunk; a network failure or a busy server is tried again, a few times.
  function sendChunk(file, state, index, attempt) {
    var start = index * state.chunk_size;
    return file.slice(start, Math.min(start + state.chunk_size, file.size)).arrayBuffer().then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      return fetch(uploads + "/" + state.hash + "/chunks/" + index, {
        method: "PUT", credentials: "same-origin", body: bytes,
        headers: { "Content-Type": "application/octet-stream", "Content-Digest": "sha-256=:" + base64(new Sha256().update(bytes).digest()) + ":",
                   "X-CSRF-Token": token.value }
      });
    }).then(function (response) {
      if (response.status === 204) return;
      if ((response.status === 503 || response.status >= 500) && attempt < 3) return retry(file, state, index, attempt);
      return refusal(response);
    }, function (error) {
      if (attempt < 3) return retry(file, state, index, attempt);
      throw new Refusal("The connection to the server failed while sending " + file.name + ". Choose the file again to go on where it stopped.");
    });
  }

  function retry(file, state, index, attempt) {
    return new Promise(function (resolve) { setTimeout(resolve, 1000 * (attempt + 1)); })
      .then(function () { return sendChunk(file, state, index, attempt + 1); });
  }

  function upload(file) {
    if (file.size > limit) {
      return Promise.reject(new Refusal(file.name + " has " + size(file.size) + "; a file may have at most " +
                                        form.getAttribute("data-chunked-max-text") + ". Nothing was stored."));
    }
    return hashWhole(file).then(function (hash) {
      return post(uploads + "/start", { name: file.name, hash: hash, size: String(file.size) });
    }).then(function (state) {
      var have = {};
      state.received.forEach(function (index) { have[index] = true; });
      var count = Math.max(1, Math.ceil(file.size / state.chunk_size));
      var sent = state.received.length;
      var next = function (index) {
        if (index >= count) return Promise.resolve();
        if (have[index]) return next(index + 1);
        show("Uploading " + file.name + "…", sent * state.chunk_size, file.size);
        return sendChunk(file, state, index, 0).then(function () {
          sent += 1;
          return next(index + 1);
        });
      };
      return next(0).then(function () {
        show("Storing " + file.name + "…", file.size, file.size);
        return post(uploads + "/" + state.hash + "/complete", { name: file.name });
      });
    }).then(function (done) {
      window.location.assign(done.location);
    });
  }

  form.addEventListener("submit", function (event) {
    var file = input.files && input.files[0];
    if (!file) return;
    event.preventDefault();
    button.disabled = true;
    upload(file).catch(function (error) {
      show(error instanceof Refusal ? error.message : "The upload failed: " + error, 0, 1, true);
      button.disabled = false;
    });
  });
})();
