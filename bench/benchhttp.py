"""HTTP helpers shared by the Python parts of bench/hostile.sh and bench/longpoll.sh.

Load clients come from 127.0.0.2 (and nearby loopback addresses) so the server's
per-address connection caps count them apart from the measuring client.
"""
import http.client, resource, time


def server_address(url):
    """(host, port) of a server URL such as http://127.0.0.1:8123."""
    host, port = url.split("//")[1].split(":")
    return host, int(port)


def raise_file_limit(limit=8192):
    """Lets one process hold thousands of sockets (up to the hard limit)."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def request(host, port, method, path, body=None, token=None, source="127.0.0.2", headers=None, timeout=30):
    """One request on a connection of its own; returns (response, body bytes)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(source, 0))
    sent = {"Content-Type": "application/json"}
    if token: sent["Authorization"] = "Bearer " + token
    sent.update(headers or {})
    conn.request(method, path, body=body, headers=sent)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


def latencies(host, port, path, count, token=None):
    """Median and 99th percentile, in ms, of `count` GETs of `path` on one kept-alive connection."""
    conn = http.client.HTTPConnection(host, port, timeout=30, source_address=("127.0.0.2", 0))
    headers = {"Authorization": "Bearer " + token} if token else {}
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        conn.getresponse().read()
        samples.append((time.perf_counter() - start) * 1000)
    conn.close()
    samples.sort()
    return samples[len(samples) // 2], samples[int(len(samples) * 0.99) - 1]
