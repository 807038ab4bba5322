#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

MallocTuning.configureProcess()
BatchScheduling.configureProcess()

let code = await CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
