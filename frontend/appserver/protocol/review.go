package protocol

// Review mode (review/start): the items that open and close a review
// turn, and the method's response.

// The review items' types.
const (
	TypeEnteredReviewMode = "enteredReviewMode"
	TypeExitedReviewMode  = "exitedReviewMode"
)

// EnteredReviewModeItem opens a review turn; Review names what is
// reviewed, as a client shows it ("current changes", "commit abc1234:
// title", or the custom instructions).
type EnteredReviewModeItem struct {
	ID     string `json:"id"`
	Review string `json:"review"`
}

// ExitedReviewModeItem closes a review turn; Review is the review's
// findings as text (see appserver's review rendering).
type ExitedReviewModeItem struct {
	ID     string `json:"id"`
	Review string `json:"review"`
}

func (i EnteredReviewModeItem) ItemType() string { return TypeEnteredReviewMode }
func (i ExitedReviewModeItem) ItemType() string  { return TypeExitedReviewMode }
func (i EnteredReviewModeItem) ItemID() string   { return i.ID }
func (i ExitedReviewModeItem) ItemID() string    { return i.ID }

func (i EnteredReviewModeItem) MarshalJSON() ([]byte, error) {
	type plain EnteredReviewModeItem
	return tagged(i.ItemType(), plain(i))
}

func (i ExitedReviewModeItem) MarshalJSON() ([]byte, error) {
	type plain ExitedReviewModeItem
	return tagged(i.ItemType(), plain(i))
}

// ReviewStartResponse answers review/start: the review's turn, and the
// thread it runs on (the thread named in the request: reviews run
// inline).
type ReviewStartResponse struct {
	Turn           Turn   `json:"turn"`
	ReviewThreadID string `json:"reviewThreadId"`
}
