import ArgumentParser
import Foundation
import JarvisCore

extension Jarvis {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List ALSA capture devices (name and description, like 'arecord -L').",
            discussion: "Pass a name to 'jarvis listen --device NAME'. With --json: one {\"name\", \"description\"} object per line.")

        @Flag(name: .long, help: "Print one JSON object per line.")
        var json = false

        func run() throws {
            let devices: [CaptureDevice]
            do {
                devices = try CaptureDevice.list()
            } catch {
                FileHandle.standardError.write(Data("jarvis: Cannot list ALSA devices (\(error.reason)); check the ALSA configuration.\n".utf8))
                throw ExitCode(ExitStatus.audioInput)
            }
            for d in devices {
                if json {
                    print(JSONValue.object([("name", .string(d.name)), ("description", .string(d.description))]).serialized())
                } else {
                    print(d.name)
                    for line in d.description.split(separator: "\n") {
                        print("    " + line)
                    }
                }
            }
            if devices.isEmpty {
                FileHandle.standardError.write(Data("jarvis: No ALSA capture devices found.\n".utf8))
            }
        }
    }
}
