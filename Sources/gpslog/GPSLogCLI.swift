// SPDX-License-Identifier: MIT
import GPSLogCommands

/// The executable: everything lives in GPSLogCommands, where it can be tested.
@main
enum GPSLogCLI {
    static func main() async {
        await GPSLog.main()
    }
}
