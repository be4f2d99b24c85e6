"""The CFR family: exact CFR / CFR+ / DCFR on extracted trees and compiled Monte Carlo CFR."""
