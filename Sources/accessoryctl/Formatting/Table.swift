/// A plain-text table: a header row and rows, columns padded to their widest cell and separated
/// by two spaces.
///
/// Threading: a value. Any thread.
struct Table {
    /// How a column's cells are padded.
    ///
    /// Threading: a value. Any thread.
    enum Alignment {
        case left
        case right
    }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    /// The rendered lines, header first, without trailing spaces.
    func lines() -> [String] {
        let all = [headers] + rows
        var widths = headers.map { _ in 0 }
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            var line = ""
            for (column, cell) in row.enumerated() where column < widths.count {
                if column > 0 { line += "  " }
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                line += alignments[column] == .right ? padding + cell : cell + padding
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
