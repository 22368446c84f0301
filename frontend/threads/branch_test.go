package threads

import (
	"fmt"
	"testing"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

func TestBranchChangedIsToldFromOtherRefusals(t *testing.T) {
	withDetail := func(typeURL string) error {
		st := status.New(codes.InvalidArgument, "refused")
		p := st.Proto()
		p.Details = append(p.Details, &anypb.Any{TypeUrl: typeURL})
		return serviceerror.FromStatus(status.FromProto(p))
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"branch changed", withDetail("type.googleapis.com/temporal.server.api.errordetails.v1.CurrentBranchChangedFailure"), true},
		{"wrapped", fmt.Errorf("following: %w", withDetail("type.googleapis.com/temporal.server.api.errordetails.v1.CurrentBranchChangedFailure")), true},
		{"other detail", withDetail("type.googleapis.com/temporal.api.errordetails.v1.NotFoundFailure"), false},
		{"plain invalid argument", serviceerror.NewInvalidArgument("bad"), false},
		{"not a status", fmt.Errorf("boom"), false},
	} {
		if got := branchChanged(tc.err); got != tc.want {
			t.Errorf("%s: branchChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
}
