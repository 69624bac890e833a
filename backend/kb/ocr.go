package kb

// Fields marking recognised text: which engine read the chunk's page and
// its mean word confidence (0-100), so search hits can say the words are
// Tesseract's reading, not the file's.
const (
	OCRField           = "x_ocr"
	OCRConfidenceField = "x_ocr_confidence"
)

// OCRNote is how a hit on recognised text is labelled.
func OCRNote(extra map[string]string) string {
	if extra[OCRField] == "" {
		return ""
	}
	if c := extra[OCRConfidenceField]; c != "" {
		return "recognised by OCR, " + c + "% confidence"
	}
	return "recognised by OCR"
}
